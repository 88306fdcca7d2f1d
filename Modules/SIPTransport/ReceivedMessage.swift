/// One SIP message as it came off the network, with where it came from.
///
/// For UDP one datagram, for WS/WSS one WebSocket message (RFC 7118 §5.1), for TCP/TLS one
/// message split from the stream by the framer. `remote` is what RFC 3581 `received`/`rport`
/// and RFC 3261 §18.2.1 need.
public struct ReceivedMessage: Sendable {
    /// Exactly one SIP message (start line, headers, body).
    public var bytes: [UInt8]
    public var transport: TransportKind
    public var local: SocketAddress?
    public var remote: SocketAddress
    /// WS/WSS: whether it came in a binary (true) or text (false) message.
    public var binary: Bool

    public init(
        bytes: [UInt8], transport: TransportKind, local: SocketAddress?, remote: SocketAddress, binary: Bool = false
    ) {
        self.bytes = bytes
        self.transport = transport
        self.local = local
        self.remote = remote
        self.binary = binary
    }

    /// The message as text (lossy for non-UTF-8 octets).
    public var text: String { String(decoding: bytes, as: UTF8.self) }
}

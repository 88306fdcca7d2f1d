import SIPCore

/// One SIP message as it came off the network, parsed, with where it came from.
///
/// For UDP one datagram, for WS/WSS one WebSocket message (RFC 7118 §5.1), for TCP/TLS one
/// message split from the stream by SIPCore's `SIPStreamFramer`. `remote` is what RFC 3581
/// `received`/`rport` and RFC 3261 §18.2.1 need. Unparseable datagrams and WebSocket
/// messages are logged and dropped (RFC 3261 §18.3); an unparseable stream ends the connection.
public struct ReceivedMessage: Sendable {
    /// The parsed message (SIPCore).
    public var message: SIPMessage
    /// Exactly the received bytes of this one message.
    public var bytes: [UInt8]
    public var transport: TransportKind
    public var local: SocketAddress?
    public var remote: SocketAddress
    /// WS/WSS: whether it came in a binary (true) or text (false) message.
    public var binary: Bool

    public init(
        message: SIPMessage, bytes: [UInt8], transport: TransportKind, local: SocketAddress?, remote: SocketAddress,
        binary: Bool = false
    ) {
        self.message = message
        self.bytes = bytes
        self.transport = transport
        self.local = local
        self.remote = remote
        self.binary = binary
    }

    /// The message as text (lossy for non-UTF-8 octets), for logs and tests.
    public var text: String { String(decoding: bytes, as: UTF8.self) }
}

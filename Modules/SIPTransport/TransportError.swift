/// The one error type of SIPTransport: a ``Code`` to compare on, plus the transport and peer
/// it happened on and a human-readable detail, printable as one line.
///
/// Equality compares the code only (like swift-certificates' `CertificateError`).
public struct TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// getaddrinfo / SRV found no usable address.
        case resolutionFailed
        /// socket()/bind()/setsockopt() failed locally.
        case socketFailed
        /// TCP connect refused or unreachable.
        case connectFailed
        /// No connection within the configured connect timeout.
        case connectTimeout
        /// The TLS handshake failed for a reason other than verification.
        case tlsHandshakeFailed
        /// The server certificate (chain or host name) did not verify.
        case certificateVerificationFailed
        /// The RFC 6455 opening handshake failed (status, Upgrade, accept key).
        case webSocketHandshakeFailed
        /// The server did not select the `sip` subprotocol (RFC 7118 §4.1).
        case subprotocolRefused
        /// The peer broke the wire protocol (bad WebSocket frame, unparseable SIP framing).
        case protocolViolation
        /// A frame or message larger than the configured maximum.
        case messageTooLarge
        /// The peer closed the connection (TCP FIN/RST, TLS close_notify, WebSocket Close).
        case peerClosed
        /// No keep-alive answer within the configured bound (RFC 5626 §4.4).
        case keepAliveTimeout
        /// A send failed (connection broken).
        case sendFailed
        /// The flow is not connected (yet, or any more).
        case notConnected
        /// Closed locally.
        case closed
        /// A caller error: bad host, port or option.
        case invalidArgument
    }

    public var code: Code
    public var transport: TransportKind?
    /// The remote party as `host:port` (or the target being resolved).
    public var peer: String?
    public var detail: String
    public var fileID: String
    public var line: Int

    public init(
        _ code: Code, transport: TransportKind? = nil, peer: String? = nil, _ detail: String,
        fileID: String = #fileID, line: Int = #line
    ) {
        self.code = code
        self.transport = transport
        self.peer = peer
        self.detail = detail
        self.fileID = fileID
        self.line = line
    }

    public static func == (lhs: TransportError, rhs: TransportError) -> Bool { lhs.code == rhs.code }

    /// One line, e.g. `certificateVerificationFailed [WSS 127.0.0.1:8089]: unable to get local issuer certificate`.
    public var description: String {
        var location = ""
        if let transport { location += transport.viaToken }
        if let peer { location += location.isEmpty ? peer : " " + peer }
        return location.isEmpty ? "\(code.rawValue): \(detail)" : "\(code.rawValue) [\(location)]: \(detail)"
    }

    /// The detail in words for a person: without the system call it came from and with a
    /// lower-case start (`sendmmsg: Connection refused` → `connection refused`), so a tool can
    /// say what failed in its own sentence without the code name or the syscall.
    public var reason: String {
        var text = Substring(detail)
        if let colon = text.firstIndex(of: ":"), text[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || "()_".contains($0) }) {
            text = text[text.index(after: colon)...].drop { $0 == " " }
        }
        guard let first = text.first else { return detail }
        return first.lowercased() + text.dropFirst()
    }

    func with(transport: TransportKind, peer: String) -> TransportError {
        var copy = self
        if copy.transport == nil { copy.transport = transport }
        if copy.peer == nil { copy.peer = peer }
        return copy
    }
}

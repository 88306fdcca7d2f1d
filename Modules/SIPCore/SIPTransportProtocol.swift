/// The transport token of a Via header or `transport` URI parameter (RFC 3261 §18, §20.42;
/// RFC 4168 SCTP; RFC 7118 §5 WS/WSS). Shared with the transport layer.
public enum SIPTransportProtocol: Sendable, Hashable, CustomStringConvertible {
    case udp, tcp, tls, sctp, ws, wss
    /// Any other token (e.g. `TLS-SCTP`, or RFC 4475's `UNKNOWN`), upper-cased.
    case other(String)

    /// Classifies a token case-insensitively.
    public init(_ token: String) {
        switch token.lowercasedASCII {
        case "udp": self = .udp
        case "tcp": self = .tcp
        case "tls": self = .tls
        case "sctp": self = .sctp
        case "ws": self = .ws
        case "wss": self = .wss
        default:
            self = .other(String(decoding: token.utf8.map { ByteClass.isAlpha($0) ? $0 & ~0x20 : $0 }, as: UTF8.self))
        }
    }

    /// Classifies `p[range]` without building a string for the common tokens.
    init(_ p: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
        if p.equalsLowercase(range, "udp") {
            self = .udp
        } else if p.equalsLowercase(range, "tcp") {
            self = .tcp
        } else if p.equalsLowercase(range, "tls") {
            self = .tls
        } else if p.equalsLowercase(range, "wss") {
            self = .wss
        } else if p.equalsLowercase(range, "ws") {
            self = .ws
        } else if p.equalsLowercase(range, "sctp") {
            self = .sctp
        } else {
            self.init(p.string(range))
        }
    }

    /// The token as written in a Via (`UDP`, `WSS`, …).
    public var token: String {
        switch self {
        case .udp: "UDP"
        case .tcp: "TCP"
        case .tls: "TLS"
        case .sctp: "SCTP"
        case .ws: "WS"
        case .wss: "WSS"
        case .other(let token): token
        }
    }

    public var description: String { token }

    /// Reliable, stream- or message-oriented (RFC 3261 §17.1.1.2: no retransmission of requests).
    public var isReliable: Bool { self != .udp }

    /// TLS-protected (RFC 3261 §26.2; RFC 7118 §5 WSS).
    public var isSecure: Bool { self == .tls || self == .wss }

    /// Framing needs Content-Length (stream transports, RFC 3261 §18.3); WebSocket frames carry
    /// whole messages (RFC 7118 §5) and UDP datagrams are whole messages.
    public var isStream: Bool { self == .tcp || self == .tls }

    /// The default port when a URI or Via names none (RFC 3261 §19.1.2; RFC 7118 uses the
    /// HTTP ports).
    public var defaultPort: UInt16 {
        switch self {
        case .tls: 5061
        case .ws: 80
        case .wss: 443
        default: 5060
        }
    }
}

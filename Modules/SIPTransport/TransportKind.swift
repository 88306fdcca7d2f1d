import SIPCore

/// The five SIP transports AstraSIP speaks.
///
/// Reliability is visible to the layers above: RFC 3261 §17.1.1.2 retransmits requests only
/// over unreliable transports (Timer A is not started when ``isReliable`` is true).
public enum TransportKind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// RFC 3261 §18 over UDP, with RFC 3581 rport.
    case udp
    /// RFC 3261 §18 over TCP (stream framing by Content-Length).
    case tcp
    /// RFC 3261 §26.2 over TLS 1.2+.
    case tls
    /// RFC 7118 SIP over WebSocket.
    case ws
    /// RFC 7118 SIP over secure WebSocket.
    case wss

    /// True for stream transports: no retransmission of requests (RFC 3261 §17.1.1.2).
    public var isReliable: Bool { self != .udp }
    /// True when the flow is protected by TLS.
    public var isSecure: Bool { self == .tls || self == .wss }
    /// True for RFC 7118 transports (one SIP message per WebSocket message).
    public var isWebSocket: Bool { self == .ws || self == .wss }
    /// True when bytes are a stream that the SIP framer must split (TCP, TLS).
    public var isByteStream: Bool { self == .tcp || self == .tls }

    /// The Via `sent-protocol` transport token (RFC 3261 §20.42, RFC 7118 §5.2: `WS`/`WSS`).
    public var viaToken: String {
        switch self {
        case .udp: "UDP"
        case .tcp: "TCP"
        case .tls: "TLS"
        case .ws: "WS"
        case .wss: "WSS"
        }
    }

    /// The URI `transport=` parameter (RFC 7118 §5.2 uses `ws` for both WS and WSS; WSS
    /// targets use the `sips` scheme).
    public var uriParameter: String {
        switch self {
        case .udp: "udp"
        case .tcp: "tcp"
        case .tls: "tls"
        case .ws, .wss: "ws"
        }
    }

    /// Default port: RFC 3261 §19.1.2 (5060/5061), RFC 6455 §3 (80/443).
    public var defaultPort: UInt16 { sipTransportProtocol.defaultPort }

    public var description: String { viaToken }

    /// Parses `udp|tcp|tls|ws|wss` (any case), as in a line's `transport` field.
    public init?(name: String) {
        self.init(rawValue: name.lowercased())
    }
}

extension TransportKind {
    /// The same transport in SIPCore's Via model (`SIPVia.transport`).
    public var sipTransportProtocol: SIPTransportProtocol {
        switch self {
        case .udp: .udp
        case .tcp: .tcp
        case .tls: .tls
        case .ws: .ws
        case .wss: .wss
        }
    }

    /// The transport of a Via / URI `transport=` value, if it is one of ours (not SCTP).
    public init?(_ protocol: SIPTransportProtocol) {
        switch `protocol` {
        case .udp: self = .udp
        case .tcp: self = .tcp
        case .tls: self = .tls
        case .ws: self = .ws
        case .wss: self = .wss
        case .sctp, .other: return nil
        }
    }
}

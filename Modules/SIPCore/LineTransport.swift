/// The transport a line registers over (TOOLS.md "The line"): `udp`, `tcp`, `tls`, `ws`, `wss`.
///
/// Default ports: RFC 3261 §19.1.2 (5060 for UDP/TCP, 5061 for TLS) and RFC 7118 §5 / RFC 6455
/// §3 (80 for `ws`, 443 for `wss`).
public enum LineTransport: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case udp, tcp, tls, ws, wss

    /// The port used when `server` names no port.
    public var defaultPort: Int {
        switch self {
        case .udp, .tcp: 5060
        case .tls: 5061
        case .ws: 80
        case .wss: 443
        }
    }

    /// True for `tls` and `wss`: the connection is encrypted and the server certificate is checked.
    public var isSecure: Bool { self == .tls || self == .wss }

    /// True for `ws` and `wss` (RFC 7118 SIP over WebSocket).
    public var isWebSocket: Bool { self == .ws || self == .wss }

    /// Parses a transport name, case-insensitively (`UDP` and `udp` are the same).
    public init?(name: String) {
        self.init(rawValue: name.lowercased())
    }

    /// The transport a `sips:` URI with this `transport=` parameter means: RFC 7118 §5.2 names
    /// only `ws` as the URI parameter, so `sips:…;transport=ws` is WSS (`wss` is accepted as
    /// well); `sips:` over TCP is TLS (RFC 3261 §26.2.2).
    public var secured: LineTransport {
        switch self {
        case .ws: .wss
        case .tcp, .udp: .tls
        case .tls, .wss: self
        }
    }

    public var description: String { rawValue }
}

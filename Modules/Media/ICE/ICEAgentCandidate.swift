/// RFC 8445 §5.1.1: what kind of transport address a candidate is.
public enum ICECandidateKind: String, Sendable, Hashable {
    case host
    case serverReflexive = "srflx"
    case peerReflexive = "prflx"
    case relayed = "relay"

    /// RFC 8445 §5.1.2.2 recommended type preferences.
    public var typePreference: UInt32 {
        switch self {
        case .host: 126
        case .peerReflexive: 110
        case .serverReflexive: 100
        case .relayed: 0
        }
    }
}

/// A candidate as the ICE agent uses it (local or remote): address, kind, priority,
/// foundation and, for local ones, the base it is sent from (RFC 8445 §5.1.1).
public struct ICEAgentCandidate: Sendable, Hashable, CustomStringConvertible {
    public var kind: ICECandidateKind
    public var address: UDPSocket.Address
    /// RFC 8445 §5.1.1.1: where a local candidate's packets leave from (itself for host).
    public var base: UDPSocket.Address
    public var priority: UInt32
    public var foundation: String
    public var component: Int
    /// The SDP `raddr`/`rport` when it is not the base: a relayed candidate's server-reflexive
    /// (mapped) address (RFC 8839 §5.1).
    public var relatedAddress: UDPSocket.Address?

    public init(
        kind: ICECandidateKind, address: UDPSocket.Address, base: UDPSocket.Address? = nil, priority: UInt32,
        foundation: String, component: Int = 1
    ) {
        self.kind = kind
        self.address = address
        self.base = base ?? address
        self.priority = priority
        self.foundation = foundation
        self.component = component
    }

    /// RFC 8445 §5.1.2.1: 2^24·type preference + 2^8·local preference + (256 − component).
    public static func priority(kind: ICECandidateKind, localPreference: UInt32, component: Int = 1) -> UInt32 {
        (kind.typePreference << 24) + (localPreference << 8) + UInt32(256 - component)
    }

    /// RFC 8445 §5.1.1.3: same type, base IP, STUN server and transport → same foundation.
    /// A short stable token derived from those (CRC-32, in decimal).
    public static func foundation(kind: ICECandidateKind, baseHost: String, server: String? = nil) -> String {
        let key = Array("\(kind.rawValue)|\(baseHost)|\(server ?? "")|udp".utf8)
        return String(key.withUnsafeBytes { STUNCrypto.crc32($0) })
    }

    /// As an SDP `a=candidate` (RFC 8839 §5.1).
    public var sdp: ICECandidate {
        ICECandidate(
            foundation: foundation, component: component, transport: "UDP", priority: priority, address: address.host,
            port: address.port, type: kind.rawValue,
            relatedAddress: kind == .host ? nil : (relatedAddress ?? base).host,
            relatedPort: kind == .host ? nil : (relatedAddress ?? base).port)
    }

    /// From an SDP candidate; nil for non-UDP or unresolved (mDNS `.local`) addresses.
    public init?(sdp c: ICECandidate) {
        guard c.transport.uppercased() == "UDP", let kind = ICECandidateKind(rawValue: c.type),
            STUNTransportAddress(host: c.address, port: c.port) != nil
        else { return nil }
        let address = UDPSocket.Address(host: c.address, port: c.port)
        self.init(kind: kind, address: address, priority: c.priority, foundation: c.foundation, component: c.component)
    }

    var isIPv6: Bool { address.host.contains(":") }
    var isLoopback: Bool { address.host.hasPrefix("127.") || address.host == "::1" }

    public var description: String { "\(kind.rawValue) \(address) prio \(priority)" }
}

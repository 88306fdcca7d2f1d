/// `a=candidate` (RFC 8839 §5.1): one ICE candidate.
public struct ICECandidate: Sendable, Hashable {
    public var foundation: String
    public var component: Int
    public var transport: String
    public var priority: UInt32
    public var address: String
    public var port: UInt16
    /// host, srflx, prflx, relay.
    public var type: String
    public var relatedAddress: String?
    public var relatedPort: UInt16?
    /// Further `name value` pairs (e.g. `generation 0`), kept in order.
    public var extensions: [SDPAttribute]

    public init(
        foundation: String, component: Int, transport: String = "UDP", priority: UInt32, address: String,
        port: UInt16, type: String = "host", relatedAddress: String? = nil, relatedPort: UInt16? = nil,
        extensions: [SDPAttribute] = []
    ) {
        self.foundation = foundation
        self.component = component
        self.transport = transport
        self.priority = priority
        self.address = address
        self.port = port
        self.type = type
        self.relatedAddress = relatedAddress
        self.relatedPort = relatedPort
        self.extensions = extensions
    }

    public init(parsing value: String) throws(MediaError) {
        let f = value.split(separator: " ").map(String.init)
        guard f.count >= 8, f[6] == "typ", let component = Int(f[1]), let priority = UInt32(f[3]),
            let port = UInt16(f[5])
        else { throw MediaError(.badSDPField, "candidate '\(value)'") }
        self.init(
            foundation: f[0], component: component, transport: f[2], priority: priority, address: f[4],
            port: port, type: f[7])
        var i = 8
        while i + 1 < f.count {
            switch f[i] {
            case "raddr": relatedAddress = f[i + 1]
            case "rport":
                guard let p = UInt16(f[i + 1]) else { throw MediaError(.badSDPField, "candidate rport '\(value)'") }
                relatedPort = p
            default: extensions.append(SDPAttribute(f[i], f[i + 1]))
            }
            i += 2
        }
        guard i == f.count else { throw MediaError(.badSDPField, "candidate '\(value)'") }
    }

    public var value: String {
        var s = "\(foundation) \(component) \(transport) \(priority) \(address) \(port) typ \(type)"
        if let relatedAddress { s += " raddr \(relatedAddress)" }
        if let relatedPort { s += " rport \(relatedPort)" }
        for e in extensions { s += " \(e.name) \(e.value ?? "")" }
        return s
    }
}

/// ICE credentials and candidates of one media section (RFC 8839 §5.3, §5.4, §5.6).
public struct ICEParameters: Sendable, Hashable {
    public var ufrag: String
    public var pwd: String
    public var candidates: [ICECandidate]
    public var options: [String]
    public init(ufrag: String, pwd: String, candidates: [ICECandidate] = [], options: [String] = []) {
        self.ufrag = ufrag
        self.pwd = pwd
        self.candidates = candidates
        self.options = options
    }
}

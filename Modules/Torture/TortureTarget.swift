import SIPCore
import SIPTransport
import ToolSupport

/// The server astra-torture is pointed at, and the transports to run over.
///
/// `HOST[:PORT]`, `[IPv6][:PORT]`, or a SIP URI `sip:HOST[:PORT][;transport=tcp]` (`sips:` is
/// TLS, RFC 3261 §19.1.2). `--transport` lists the transports; without it, the URI's or UDP.
public struct TortureTarget: Sendable, Hashable {
    public var host: String
    /// nil: the transport's default port.
    public var port: UInt16?
    public var transports: [TransportKind]

    public init(host: String, port: UInt16?, transports: [TransportKind]) {
        self.host = host
        self.port = port
        self.transports = transports
    }

    /// Parses the target and the `--transport` list; the error is the usage line's reason.
    public init(parsing text: String, transports list: String?) throws(ToolError) {
        var rest = Substring(text)
        var uriTransport: TransportKind?
        let lower = text.lowercased()
        if lower.hasPrefix("sip:") || lower.hasPrefix("sips:") {
            rest = rest.drop { $0 != ":" }.dropFirst()
            if lower.hasPrefix("sips:") { uriTransport = .tls }
            if let at = rest.lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
            let parts = rest.split(separator: ";", omittingEmptySubsequences: false)
            rest = parts.first ?? ""
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.lowercased() }
                guard pair.count == 2, pair[0] == "transport" else { continue }
                guard let kind = TransportKind(name: pair[1]) else {
                    throw .usage("target '\(text)': unknown transport '\(pair[1])'")
                }
                uriTransport = uriTransport == .tls && kind == .ws ? .wss : kind
            }
        }
        let server: LineServer
        do { server = try LineServer(parsing: String(rest), field: "target") } catch {
            throw .usage("target '\(text)': \(error.detail)")
        }
        host = server.host
        port = server.port.map { UInt16($0) }
        if let list {
            var kinds: [TransportKind] = []
            for name in list.split(separator: ",", omittingEmptySubsequences: false) {
                guard let kind = TransportKind(name: String(name).lowercased()) else {
                    throw .usage("--transport '\(list)': '\(name)' is not udp, tcp, tls, ws or wss")
                }
                if !kinds.contains(kind) { kinds.append(kind) }
            }
            transports = kinds
        } else {
            transports = [uriTransport ?? .udp]
        }
    }

    /// The flow target over one transport.
    public func flowTarget(_ transport: TransportKind) -> FlowTarget {
        FlowTarget(host: host, port: port, transport: transport)
    }

    /// The server as a URI host and port for the OPTIONS Request-URI: `127.0.0.1:5060`, `[::1]:5061`.
    public func uriHostPort(_ transport: TransportKind) -> String {
        (host.contains(":") ? "[\(host)]" : host) + ":\(port ?? transport.defaultPort)"
    }
}

import SIPCore

/// Where this user agent can be reached on the flow a request goes out on: the sent-by of its
/// Via (RFC 3261 §18.1.1) and the host:port of its Contact. For WebSocket flows both use a
/// random `.invalid` host (RFC 7118 §5.2), since the server reaches us over the flow itself.
public struct LocalBinding: Sendable, Hashable {
    public var transport: SIPTransportProtocol
    public var host: String
    public var port: UInt16?

    public init(transport: SIPTransportProtocol, host: String, port: UInt16?) {
        self.transport = transport
        self.host = host
        self.port = port
    }

    /// A Via for a new request on this flow, with `rport` (RFC 3581 §3) so the server answers to
    /// the address the request came from.
    public func via(branch: String) -> SIPVia {
        SIPVia(transport: transport, host: host, port: port, branch: branch, parameters: [SIPParameter(name: "rport")])
    }

    /// The Contact URI for `user` on this flow; `transport=` is named for everything but UDP,
    /// and is `ws` for WS and WSS alike (RFC 7118 §5.2 registers only `ws` as the URI transport
    /// parameter; the Via says `WSS`, erratum 5937).
    public func contactURI(user: String?, extra: SIPParameters = []) -> SIPURI {
        var parameters = SIPParameters()
        if transport != .udp { parameters.set("transport", Self.uriParameter(transport)) }
        for p in extra { parameters.set(p.name, p.value) }
        return SIPURI(scheme: .sip, user: user, host: host,
                      port: port, parameters: parameters)
    }

    /// The URI `transport=` value of a flow's transport (`ws` for WSS too).
    public static func uriParameter(_ transport: SIPTransportProtocol) -> String {
        transport == .wss ? "ws" : transport.token.lowercased()
    }
}

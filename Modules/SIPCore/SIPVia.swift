/// One `via-parm` of a Via header (RFC 3261 §20.42, §18.2.1; RFC 3581 rport; RFC 5118 IPv6;
/// RFC 7118 WS/WSS).
public struct SIPVia: Sendable, Hashable, CustomStringConvertible {
    /// The RFC 3581 `rport` parameter.
    public enum RPort: Sendable, Hashable {
        /// `;rport` with no value: the client asks for symmetric response routing (RFC 3581 §3).
        case requested
        /// `;rport=N`: the port the server saw the request come from (RFC 3581 §4).
        case value(UInt16)
    }

    /// `SIP` in every message seen so far.
    public var protocolName: String
    /// `2.0`.
    public var protocolVersion: String
    public var transport: SIPTransportProtocol
    /// `sent-by` host.
    public var host: SIPHost
    /// `sent-by` port, if written.
    public var port: UInt16?
    /// All `via-params` in order (branch, received, rport, maddr, ttl, extensions).
    public var parameters: SIPParameters

    public init(
        transport: SIPTransportProtocol, host: String, port: UInt16? = nil, branch: String? = nil,
        parameters: SIPParameters = []
    ) {
        self.protocolName = "SIP"
        self.protocolVersion = "2.0"
        self.transport = transport
        self.host = SIPHost(host)
        self.port = port
        self.parameters = parameters
        if let branch { self.parameters.set("branch", branch) }
    }

    /// The transaction branch (RFC 3261 §8.1.1.7).
    public var branch: String? {
        get { parameters["branch"] }
        set { if let newValue { parameters.set("branch", newValue) } else { parameters.remove("branch") } }
    }

    /// Whether the branch carries the RFC 3261 magic cookie `z9hG4bK` (§17.2.3 matching applies).
    public var hasMagicCookie: Bool { branch?.hasPrefix("z9hG4bK") ?? false }

    /// The `received` parameter (RFC 3261 §18.2.1), brackets removed from IPv6 (RFC 5118 §4.5).
    public var received: String? {
        get {
            guard let value = parameters["received"] else { return nil }
            return value.hasPrefix("[") && value.hasSuffix("]") ? String(value.dropFirst().dropLast()) : value
        }
        set { if let newValue { parameters.set("received", newValue) } else { parameters.remove("received") } }
    }

    /// The RFC 3581 `rport` parameter, with or without a value; `nil` when absent.
    public var rport: RPort? {
        get {
            guard parameters.contains("rport") else { return nil }
            guard let text = parameters["rport"] else { return .requested }
            guard let port = UInt16(text) else { return .requested }
            return .value(port)
        }
        set {
            switch newValue {
            case nil: parameters.remove("rport")
            case .requested: parameters.set("rport")
            case .value(let port): parameters.set("rport", String(port))
            }
        }
    }

    /// `maddr` (RFC 3261 §18.2.2), `ttl`.
    public var maddr: String? { parameters["maddr"] }

    /// `SIP/2.0/UDP host:port;params`.
    public var description: String {
        var out = protocolName + "/" + protocolVersion + "/" + transport.token + " " + host.description
        if let port { out += ":" + String(port) }
        return out + parameters.serialized
    }
}

/// Byte ranges of one via-parm.
struct ViaRanges {
    var protocolName: Range<Int>
    var protocolVersion: Range<Int>
    var transport: Range<Int>
    var host: Range<Int>
    var hostKind: SIPHost.Kind
    var port: UInt16?
    var parameters: Range<Int>
}

extension SIPVia {
    /// Scans one via-parm at the cursor: `sent-protocol LWS sent-by *( SEMI via-params )`.
    static func scan(_ c: inout ByteCursor) throws(SIPParseError) -> ViaRanges {
        c.skipLWS()
        let name = try c.token("protocol name")
        try c.expectSeparator(ByteClass.slash, "'/'")
        let version = try c.token("protocol version")
        try c.expectSeparator(ByteClass.slash, "'/'")
        let transport = try c.token("transport")
        let beforeHost = c.i
        c.skipLWS()
        guard c.i > beforeHost else { throw c.error(.invalidHeaderValue, "expected LWS before sent-by") }
        let hostStart = c.i
        let kind: SIPHost.Kind
        if c.peek == ByteClass.leftBracket {
            c.i += 1
            while let b = c.peek, ByteClass.isHexDigit(b) || b == ByteClass.colon || b == ByteClass.dot { c.i += 1 }
            guard c.peek == ByteClass.rightBracket, c.i - hostStart >= 3 else {
                throw c.error(.invalidHeaderValue, "bad IPv6 reference in sent-by")
            }
            c.i += 1
            kind = .ipv6
        } else {
            var numeric = true
            while let b = c.peek, ByteClass.isAlphanumeric(b) || b == 0x2D || b == ByteClass.dot || b == 0x5F {
                if !(ByteClass.isDigit(b) || b == ByteClass.dot) { numeric = false }
                c.i += 1
            }
            guard c.i > hostStart else { throw c.error(.invalidHeaderValue, "expected sent-by host") }
            kind = numeric ? .ipv4 : .name
        }
        let host = hostStart..<c.i
        var port: UInt16? = nil
        if c.consumeSeparator(ByteClass.colon) {
            port = UInt16(try c.decimal(max: 65535))
        }
        let parametersStart = c.i
        try c.parameters { _, _ in }
        return ViaRanges(
            protocolName: name, protocolVersion: version, transport: transport, host: host,
            hostKind: kind, port: port, parameters: parametersStart..<c.i)
    }

    /// Validates a whole Via header value (one or more comma-separated via-parms); returns the
    /// parameters of the first via-parm (their end is that via-parm's end), which the parser
    /// keeps for the first Via line: `branch` is looked up there only when asked for.
    @discardableResult
    static func validate(_ p: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, base: Int) throws(SIPParseError)
        -> Range<Int>
    {
        var c = ByteCursor(p, range, base: base, header: .via)
        let first = try scan(&c)
        while try c.nextListElement() { _ = try scan(&c) }
        return first.parameters
    }

    /// Parses every via-parm of one Via header value.
    static func parseAll(_ p: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, into out: inout [SIPVia])
        throws(SIPParseError)
    {
        var c = ByteCursor(p, range, header: .via)
        repeat { out.append(try SIPVia(p, try scan(&c))) } while try c.nextListElement()
    }

    /// Parses only the first via-parm of one Via header value (the top Via of a line the parse
    /// validated; what follows it is not looked at).
    static func parseFirst(_ p: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) throws(SIPParseError) -> SIPVia {
        var c = ByteCursor(p, range, header: .via)
        return try SIPVia(p, try scan(&c))
    }

    /// Builds the value from one scanned via-parm.
    private init(_ p: UnsafeBufferPointer<UInt8>, _ r: ViaRanges) throws(SIPParseError) {
        var pc = ByteCursor(p, r.parameters, header: .via)
        // Each field once, from its range (the public initializer would make and classify a
        // placeholder host and the default protocol strings first).
        parameters = try SIPParameters(p, cursor: &pc)
        transport = SIPTransportProtocol(p, r.transport)
        port = r.port
        protocolName = p.string(r.protocolName)
        protocolVersion = p.string(r.protocolVersion)
        host = SIPHost(p, r.host, kind: r.hostKind)
    }
}

/// A minimal `sip:`/`sips:` address of record, enough to stand for `--user` + `--domain`
/// (RFC 3261 §19.1.1: `sip:user[:password]@host[:port][;uri-parameters]`).
///
/// The full URI parser in SIPCore may replace this; it is deliberately small: headers (`?…`)
/// are rejected, `;transport=` is kept, other parameters are ignored, `%XX` escapes in the user
/// part are decoded (RFC 3261 §19.1.2).
public struct LineAddressOfRecord: Sendable, Hashable, CustomStringConvertible {
    /// `sips:` (RFC 3261 §19.1: TLS all the way).
    public var secure: Bool
    public var user: String
    /// The deprecated `user:password@` form (RFC 3261 §19.1.1); kept so QR codes carrying it work.
    public var password: String?
    public var domain: String
    public var port: Int?
    /// The `;transport=` URI parameter, when present and known.
    public var transport: LineTransport?

    public init(
        secure: Bool = false, user: String, password: String? = nil, domain: String, port: Int? = nil,
        transport: LineTransport? = nil
    ) {
        self.secure = secure
        self.user = user
        self.password = password
        self.domain = domain
        self.port = port
        self.transport = transport
    }

    /// Parses `sip:user@domain…` or `sips:…`; the scheme is case-insensitive.
    public init(parsing text: String) throws(LineError) {
        let s = text.lineTrimmed()
        let lower = s.lowercased()
        let rest: Substring
        if lower.hasPrefix("sips:") {
            secure = true
            rest = s.dropFirst(5)
        } else if lower.hasPrefix("sip:") {
            secure = false
            rest = s.dropFirst(4)
        } else {
            throw LineError(
                .badAddressOfRecord, "\"\(LineAddressOfRecord.redactedForError(s))\" is not a sip: or sips: URI")
        }
        if rest.contains("?") {
            throw LineError(.badAddressOfRecord, "URI headers ('?') are not allowed in an address of record")
        }
        guard let at = rest.lastIndex(of: "@") else {
            throw LineError(.missingUser, "address of record has no user part (expected sip:USER@DOMAIN)")
        }
        var userInfo = rest[..<at]
        let hostPart = rest[rest.index(after: at)...]
        password = nil
        if let colon = userInfo.firstIndex(of: ":") {
            password = try LineAddressOfRecord.unescape(userInfo[userInfo.index(after: colon)...])
            userInfo = userInfo[..<colon]
        }
        user = try LineAddressOfRecord.unescape(userInfo)
        guard !user.isEmpty else { throw LineError(.missingUser, "address of record has an empty user part") }
        let params = hostPart.split(separator: ";", omittingEmptySubsequences: false)
        let hostPort = String(params.first ?? "")
        guard !hostPort.isEmpty else { throw LineError(.missingDomain, "address of record has no domain") }
        let server = try LineServer(parsing: hostPort, field: "address of record")
        domain = server.host.lowercased()
        port = server.port
        transport = nil
        for param in params.dropFirst() {
            let pair = param.split(separator: "=", maxSplits: 1)
            if pair.count == 2, pair[0].lowercased() == "transport" {
                guard let t = LineTransport(name: String(pair[1])) else {
                    throw LineError(
                        .badTransport, field: "address of record",
                        "transport \"\(pair[1])\" is not one of udp, tcp, tls, ws, wss")
                }
                transport = t
            }
        }
    }

    /// Decodes RFC 3986 `%XX` escapes.
    static func unescape(_ text: Substring) throws(LineError) -> String {
        guard let decoded = PercentDecoding.decode(text) else { throw LineError(.badAddressOfRecord, "bad %-escape or non-UTF-8 text in the user part") }
        return decoded
    }

    /// The URI with any password left out, for error messages.
    static func redactedForError(_ s: String) -> String {
        guard let at = s.lastIndex(of: "@"), let colon = s[..<at].dropFirst(5).firstIndex(of: ":") else { return s }
        return String(s[..<colon]) + ":***" + String(s[at...])
    }

    /// RFC 3261 §25.1 `unreserved` / `user-unreserved`: characters allowed unescaped in a user part.
    static func isUserByte(_ b: UInt8) -> Bool {
        LineServer.isHostByte(b) || "!~*'()&=+$,;?/".utf8.contains(b)
    }

    /// `sip:user@domain[:port]` (no password, no parameters), the user part %-escaped as needed.
    public var description: String {
        var escaped = ""
        for b in user.utf8 {
            if LineAddressOfRecord.isUserByte(b) && b != UInt8(ascii: ";") && b != UInt8(ascii: "?") {
                escaped.unicodeScalars.append(Unicode.Scalar(b))
            } else {
                let hex = String(b, radix: 16, uppercase: true)
                escaped += "%" + (hex.count == 1 ? "0" : "") + hex
            }
        }
        let host = LineServer(host: domain, port: port).description
        return (secure ? "sips:" : "sip:") + escaped + "@" + host
    }
}

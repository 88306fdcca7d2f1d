/// The checks every line passes before a tool uses it (docs/line.md "Validation").
///
/// Every string that ends up in a protocol header (From/To/Contact, Authorization, the
/// WebSocket upgrade's request line, RFC 8599 `pn-*` parameters, TLS SNI) is checked here, at
/// the model, against its grammar and a length bound, so flags, line JSON and QR codes share
/// the one check and no path can inject CR/LF or controls into a message.
extension Line {
    /// The longest value of each text field, in UTF-8 bytes (docs/line.md "Validation").
    public static let maxFieldBytes: [Field: Int] = [
        .displayName: 256, .user: 256, .authUser: 256, .password: 1024, .passwordSealed: 4096, .domain: 253,
        .wsPath: 1024, .caFile: 4096, .tlsServerName: 253, .pushProvider: 64, .pushToken: 4096, .pushTopic: 255,
    ]

    /// Throws the first problem found, naming the field: missing user/domain, a character its
    /// grammar does not allow, a value too long, a port or expiry out of range, a `ws_path`
    /// without `/`, both a clear and a sealed password.
    public func validate() throws(LineError) {
        guard version >= 1, version <= Line.currentVersion else {
            throw LineError(.unsupportedVersion, field: "v", "line version \(version) is not supported")
        }
        guard !user.isEmpty else { throw LineError(.missingUser, field: "user", "missing user") }
        guard !domain.isEmpty else { throw LineError(.missingDomain, field: "domain", "missing domain") }
        let texts: [(Field, String?)] = [
            (.displayName, displayName), (.user, user), (.authUser, authUser), (.password, password),
            (.passwordSealed, sealedPassword), (.domain, domain), (.wsPath, wsPath), (.caFile, caFile),
            (.tlsServerName, tlsServerName), (.pushProvider, pushProvider), (.pushToken, pushToken),
            (.pushTopic, pushTopic),
        ]
        for case (let field, let value?) in texts {
            if let limit = Line.maxFieldBytes[field], value.utf8.count > limit {
                throw LineError(
                    .tooLong, field: field.rawValue, "\(field.rawValue) is longer than \(limit) bytes (\(value.utf8.count))")
            }
        }
        try Line.checkIdentity(user, field: "user")
        if let authUser {
            guard !authUser.isEmpty else { throw LineError(.badIdentity, field: "auth_user", "empty auth_user") }
            try Line.checkIdentity(authUser, field: "auth_user")
        }
        if let displayName { try Line.checkText(displayName, field: "display_name") }
        if let caFile { try Line.checkText(caFile, field: "ca_file") }
        let colons = domain.utf8.filter { $0 == UInt8(ascii: ":") }.count
        if colons == 1 || domain.hasPrefix("[") {
            throw LineError(.badIdentity, field: "domain", "domain must be a host without a port; put the port in server")
        }
        _ = try LineServer(parsing: colons > 1 ? "[\(domain)]" : domain, field: "domain")
        if let server { try Line.checkServer(server, field: "server") }
        if let outboundProxy { try Line.checkServer(outboundProxy, field: "outbound_proxy") }
        if let tlsServerName, tlsServerName.isEmpty || !tlsServerName.utf8.allSatisfy(LineServer.isHostByte) {
            throw LineError(.invalidCharacter, field: "tls_server_name", "tls_server_name is not a DNS name")
        }
        if let expires, !(1...Int(Int32.max)).contains(expires) {
            throw LineError(.badExpires, field: "expires", "expires \(expires) out of range 1…2147483647")
        }
        if let wsPath { try Line.checkWSPath(wsPath) }
        for (field, value) in [("push_provider", pushProvider), ("push_token", pushToken), ("push_topic", pushTopic)] {
            if let value { try Line.checkParameterValue(value, field: field) }
        }
        if password != nil, sealedPassword != nil {
            throw LineError(.conflictingPassword, field: "password", "both password and password_sealed are set")
        }
    }

    /// A user part must be non-empty UTF-8 without spaces, controls, `@`, `:` or `<>"` (it is
    /// %-escaped into URIs, RFC 3261 §19.1.2, and quoted in `username=`, RFC 3261 §25.1).
    static func checkIdentity(_ value: String, field: String) throws(LineError) {
        for scalar in value.unicodeScalars {
            if scalar.value < 0x21 || isControl(scalar) || "@:<>\"".unicodeScalars.contains(scalar) {
                throw LineError(
                    .badIdentity, field: field,
                    "\(field) contains a character not allowed in a SIP user part")
            }
        }
    }

    /// Free text that goes into a quoted-string (RFC 3261 §25.1 `qdtext`) or a file name: no
    /// control characters at all (C0 with CR, LF, NUL and TAB; DEL; C1).
    static func checkText(_ value: String, field: String) throws(LineError) {
        if value.unicodeScalars.contains(where: isControl) {
            throw LineError(.invalidCharacter, field: field, "\(field) contains a control character")
        }
    }

    /// `ws_path` is the request target of the WebSocket upgrade (RFC 6455 §4.1, RFC 9110 §7.1):
    /// `/` then RFC 3986 path and query characters, `%XX` escapes well formed.
    static func checkWSPath(_ path: String) throws(LineError) {
        guard path.hasPrefix("/") else {
            throw LineError(.badWSPath, field: "ws_path", "ws_path must start with '/'")
        }
        let bytes = Array(path.utf8)
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "%") {
                guard i + 2 < bytes.count, isHex(bytes[i + 1]), isHex(bytes[i + 2]) else {
                    throw LineError(.badWSPath, field: "ws_path", "ws_path has a malformed %-escape")
                }
                i += 3
                continue
            }
            guard isUnreserved(b) || "!$&'()*+,;=:@/?".utf8.contains(b) else {
                throw LineError(
                    .badWSPath, field: "ws_path",
                    "ws_path contains a character not allowed in a request target (byte 0x\(String(b, radix: 16)))")
            }
            i += 1
        }
    }

    /// RFC 8599 `pn-provider`, `pn-prid`, `pn-param` are SIP URI parameter values (RFC 3261 §25.1
    /// `paramchar`: unreserved, `[]/:&+$`), so a token can never break out of the Contact.
    static func checkParameterValue(_ value: String, field: String) throws(LineError) {
        guard !value.isEmpty else { throw LineError(.invalidCharacter, field: field, "empty \(field)") }
        guard value.utf8.allSatisfy({ isUnreserved($0) || "[]/:&+$".utf8.contains($0) }) else {
            throw LineError(.invalidCharacter, field: field, "\(field) contains a character not allowed in a URI parameter")
        }
    }

    static func checkServer(_ server: LineServer, field: String) throws(LineError) {
        guard !server.host.isEmpty else { throw LineError(.badServer, field: field, "empty host") }
        if let port = server.port, !(1...65535).contains(port) {
            throw LineError(.badPort, field: field, "port \(port) out of range 1…65535")
        }
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// RFC 3261 §25.1 `unreserved`: alphanumeric and `-_.!~*'()`.
    static func isUnreserved(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b | 0x20 >= 0x61 && b | 0x20 <= 0x7A) || "-_.!~*'()".utf8.contains(b)
    }

    static func isHex(_ b: UInt8) -> Bool { (b >= 0x30 && b <= 0x39) || (b | 0x20 >= 0x61 && b | 0x20 <= 0x66) }
}

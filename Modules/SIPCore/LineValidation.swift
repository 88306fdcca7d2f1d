/// The checks every line passes before a tool uses it (docs/line.md "Validation").
extension Line {
    /// Throws the first problem found, naming the field: missing user/domain, characters not
    /// allowed in a SIP URI, port out of range, expires out of range, a `ws_path` without `/`,
    /// both a clear and a sealed password.
    public func validate() throws(LineError) {
        guard version >= 1, version <= Line.currentVersion else {
            throw LineError(.unsupportedVersion, field: "v", "line version \(version) is not supported")
        }
        guard !user.isEmpty else { throw LineError(.missingUser, field: "user", "missing user") }
        guard !domain.isEmpty else { throw LineError(.missingDomain, field: "domain", "missing domain") }
        try Line.checkIdentity(user, field: "user")
        if let authUser {
            guard !authUser.isEmpty else { throw LineError(.badIdentity, field: "auth_user", "empty auth_user") }
            try Line.checkIdentity(authUser, field: "auth_user")
        }
        let isIPv6 = domain.contains(":") && domain.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }
        let domainServer = try LineServer(parsing: isIPv6 ? "[\(domain)]" : domain, field: "domain")
        if domainServer.port != nil {
            throw LineError(.badIdentity, field: "domain", "domain must not carry a port; put it in server")
        }
        if let server { try Line.checkServer(server, field: "server") }
        if let outboundProxy { try Line.checkServer(outboundProxy, field: "outbound_proxy") }
        if let expires, !(1...Int(Int32.max)).contains(expires) {
            throw LineError(.badExpires, field: "expires", "expires \(expires) out of range 1…2147483647")
        }
        if let wsPath, !wsPath.hasPrefix("/") {
            throw LineError(.badWSPath, field: "ws_path", "ws_path \"\(wsPath)\" must start with '/'")
        }
        if password != nil, sealedPassword != nil {
            throw LineError(.conflictingPassword, field: "password", "both password and password_sealed are set")
        }
    }

    /// A user part must be non-empty UTF-8 without spaces, controls, `@`, `:` or `<>"`.
    static func checkIdentity(_ value: String, field: String) throws(LineError) {
        for scalar in value.unicodeScalars {
            if scalar.value < 0x21 || scalar.value == 0x7F || "@:<>\"".unicodeScalars.contains(scalar) {
                throw LineError(
                    .badIdentity, field: field,
                    "\(field) contains a character not allowed in a SIP user part")
            }
        }
    }

    static func checkServer(_ server: LineServer, field: String) throws(LineError) {
        guard !server.host.isEmpty else { throw LineError(.badServer, field: field, "empty host") }
        if let port = server.port, !(1...65535).contains(port) {
            throw LineError(.badPort, field: field, "port \(port) out of range 1…65535")
        }
    }
}

extension DigestAuthorization {
    /// Parses an `Authorization` / `Proxy-Authorization` value (server side, tests):
    /// RFC 3261 §25.1 `digest-response`, RFC 7616 §3.4 (incl. `username*`, RFC 5987).
    ///
    /// - Throws: `.unsupportedScheme`, `.missingParameter` (username, realm, nonce, uri,
    ///   response; nc and cnonce with qop), `.invalidParameterValue` (nc, username*, both
    ///   username and username*), `.unsupportedAlgorithm`, `.unsupportedQoP`, syntax errors.
    public init(parsing headerValue: String) throws(DigestError) {
        let element = try AuthParamsParser.parse(headerValue)[0]
        guard element.scheme.lowercased() == "digest" else {
            throw DigestError(.unsupportedScheme, element.scheme, offset: element.offset)
        }
        func required(_ name: String) throws(DigestError) -> String {
            guard let param = element.value(name) else { throw DigestError(.missingParameter, name) }
            return param.value
        }
        if let plain = element.value("username") {
            guard element.value("username*") == nil else {
                throw DigestError(.invalidParameterValue, "both username and username*")
            }
            username = plain.value
        } else if let extended = element.value("username*") {
            guard let decoded = Self.decodeExtValue(extended.value) else {
                throw DigestError(.invalidParameterValue, "username*")
            }
            username = decoded
        } else {
            throw DigestError(.missingParameter, "username")
        }
        realm = try required("realm")
        nonce = try required("nonce")
        uri = try required("uri")
        response = try required("response")
        algorithm = .md5
        algorithmIsExplicit = false
        if let token = element.value("algorithm")?.value {
            guard let parsed = DigestAlgorithm(token: token) else { throw DigestError(.unsupportedAlgorithm, token) }
            algorithm = parsed
            algorithmIsExplicit = true
        }
        cnonce = element.value("cnonce")?.value
        opaque = element.value("opaque")?.value
        qop = nil
        nonceCount = nil
        if let token = element.value("qop")?.value {
            guard let parsed = DigestQoP(token: token) else { throw DigestError(.unsupportedQoP, token) }
            qop = parsed
            guard let count = DigestMath.parseNonceCount(try required("nc")) else {
                throw DigestError(.invalidParameterValue, "nc")
            }
            nonceCount = count
            _ = try required("cnonce")
        }
        switch element.value("userhash")?.value.lowercased() {
        case nil, "false": userhash = false
        case "true": userhash = true
        default: throw DigestError(.invalidParameterValue, "userhash")
        }
        let known: Set<String> = [
            "username", "username*", "realm", "nonce", "uri", "response", "algorithm", "cnonce", "opaque", "qop",
            "nc", "userhash",
        ]
        otherParameters = element.params.filter { !known.contains($0.name) }
    }

    /// Server-side check (RFC 7616 §3.4, RFC 3261 §22.4): recomputes the response for
    /// `password` and compares in constant time. With ``userhash`` the server passes the
    /// plain `username` it looked up from the hash. Nonce freshness and `nc` replay are the
    /// caller's business.
    public func verify(password: String, method: String, body: [UInt8] = [], username plainUsername: String? = nil)
        -> Bool
    {
        guard
            let expected = try? expectedResponse(
                password: password, method: method, body: body,
                username: plainUsername ?? username)
        else { return false }
        return DigestMath.constantTimeEqual(expected, response)
    }

    private func expectedResponse(password: String, method: String, body: [UInt8], username: String)
        throws(DigestError) -> String
    {
        let hash = algorithm.hash
        if userhash {
            let hashed = try DigestMath.userhash(hash, username: username, realm: realm)
            guard DigestMath.constantTimeEqual(hashed, self.username) else { throw DigestError(.credentialsRejected) }
        }
        let ha1 = try DigestMath.ha1(
            algorithm, username: username, realm: realm, password: password, nonce: nonce, cnonce: cnonce ?? "")
        let ha2 = try DigestMath.ha2(hash, method: method, uri: uri, qop: qop, body: body)
        return try DigestMath.response(
            hash, ha1: ha1, nonce: nonce, nonceCount: DigestMath.nonceCountHex(nonceCount ?? 0),
            cnonce: cnonce ?? "", qop: qop, ha2: ha2)
    }

    /// RFC 5987 §3.2 `ext-value` with charset UTF-8: `UTF-8'[lang]'pct-encoded` (the
    /// pct-encoded part by RFC 3986 §2.1, as every other %-escape in SIPCore).
    static func decodeExtValue(_ value: String) -> String? {
        let parts = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].lowercased() == "utf-8" else { return nil }
        return PercentDecoding.decode(parts[2])
    }
}

/// The value of an `Authorization` / `Proxy-Authorization` header with Digest credentials:
/// RFC 3261 §22.4 / §25.1 `digest-response`, RFC 7616 §3.4, RFC 8760 §2.
///
/// `response` is redacted in `description`, `debugDescription`, `dump` and ``redacted``.
public struct DigestAuthorization: Sendable, Hashable {
    /// `username` as sent: the hex H(username:realm) when ``userhash`` (RFC 7616 §3.4.4).
    public var username: String
    public var realm: String
    public var nonce: String
    /// `uri`: the Request-URI of the request (RFC 3261 §22.4).
    public var uri: String
    /// `response`: lower-case hex request-digest. Redacted when printed.
    public var response: String
    /// `algorithm`; MD5 when absent.
    public var algorithm: DigestAlgorithm
    /// Whether `algorithm=` is written (we echo the challenge: absent stays absent).
    public var algorithmIsExplicit: Bool
    public var cnonce: String?
    public var opaque: String?
    public var qop: DigestQoP?
    /// `nc` (sent as 8 hex digits) — present iff `qop` is.
    public var nonceCount: UInt32?
    /// `userhash=true` (RFC 7616 §3.4.4).
    public var userhash: Bool
    /// Parameters we do not interpret (server side), written last.
    public var otherParameters: [AuthParam]

    /// Answers `challenge` (RFC 7616 §3.4; RFC 3261 §22.2 / §22.3). `body` is hashed only for
    /// `auth-int`; `cnonce` is used with qop and `-sess` algorithms; `nonceCount` ≥ 1.
    ///
    /// - Throws: `.unsupportedQoP` when `qop` is not offered (or offered qop is omitted),
    ///   `.invalidCharacter` for CR/LF/controls in method, uri, username or cnonce,
    ///   `.invalidParameterValue` for an empty cnonce or a zero nonce count.
    public init(
        answering challenge: DigestChallenge, credentials: DigestCredentials, method: String, uri: String,
        body: [UInt8] = [], qop: DigestQoP?, cnonce: String, nonceCount: UInt32
    ) throws(DigestError) {
        var unused: String?
        try self.init(answering: challenge, credentials: credentials, method: method, uri: uri, body: body, qop: qop,
                      cnonce: cnonce, nonceCount: nonceCount, baseHA1: &unused)
    }

    /// As above; `baseHA1` caches H(username:realm:password) between answers to one challenge
    /// (it depends on nothing else): nil on entry means compute and store it.
    init(
        answering challenge: DigestChallenge, credentials: DigestCredentials, method: String, uri: String,
        body: [UInt8] = [], qop: DigestQoP?, cnonce: String, nonceCount: UInt32, baseHA1: inout String?
    ) throws(DigestError) {
        if let qop {
            guard challenge.qopOptions.contains(qop) else { throw DigestError(.unsupportedQoP, qop.token) }
        } else if !challenge.qopOptions.isEmpty {
            throw DigestError(.unsupportedQoP, "challenge requires qop")
        }
        guard !method.isEmpty, method.utf8.allSatisfy(AuthParamsParser.isTokenChar) else {
            throw DigestError(.invalidCharacter, "method")
        }
        try Self.checkSerializable(uri, "uri")
        try Self.checkSerializable(credentials.username, "username")
        try Self.checkSerializable(cnonce, "cnonce")
        try Self.checkSerializable(challenge.realm, "realm")
        try Self.checkSerializable(challenge.nonce, "nonce")
        try Self.checkSerializable(challenge.opaque ?? "", "opaque")
        let usesCnonce = qop != nil || challenge.algorithm.isSession
        if usesCnonce, cnonce.isEmpty { throw DigestError(.invalidParameterValue, "cnonce") }
        guard nonceCount > 0 else { throw DigestError(.invalidParameterValue, "nc") }

        let hash = challenge.algorithm.hash
        let ncHex = DigestMath.nonceCountHex(nonceCount)
        let base: String
        if let baseHA1 {
            base = baseHA1
        } else {
            base = try DigestMath.baseHA1(
                hash, username: credentials.username, realm: challenge.realm, password: credentials.password)
            baseHA1 = base
        }
        let ha1 = try DigestMath.ha1(challenge.algorithm, base: base, nonce: challenge.nonce, cnonce: cnonce)
        let ha2 = try DigestMath.ha2(hash, method: method, uri: uri, qop: qop, body: body)
        response = try DigestMath.response(
            hash, ha1: ha1, nonce: challenge.nonce, nonceCount: ncHex, cnonce: cnonce, qop: qop, ha2: ha2)
        username =
            challenge.userhash
            ? try DigestMath.userhash(hash, username: credentials.username, realm: challenge.realm)
            : credentials.username
        realm = challenge.realm
        nonce = challenge.nonce
        self.uri = uri
        algorithm = challenge.algorithm
        algorithmIsExplicit = challenge.algorithmIsExplicit
        self.cnonce = usesCnonce ? cnonce : nil
        opaque = challenge.opaque
        self.qop = qop
        self.nonceCount = qop == nil ? nil : nonceCount
        userhash = challenge.userhash
        otherParameters = []
    }

    /// The header value, e.g. `Digest username="bob", realm="biloxi.com", nonce="…",
    /// uri="sip:bob@biloxi.com", qop=auth, nc=00000001, cnonce="…", response="…", opaque="…"`:
    /// quoted username, realm, nonce, uri, response, cnonce, opaque; bare algorithm, qop, nc
    /// (RFC 3261 §25.1 `dig-resp`).
    public var headerValue: String { render(response: response) }

    /// ``headerValue`` with `response="<redacted>"`, for SIP traces and logs.
    public var redacted: String { render(response: "<redacted>") }

    /// Redacts the `response` of any Authorization / Proxy-Authorization value (e.g. one
    /// received by a server, or built elsewhere); unparseable input is replaced entirely.
    public static func redact(headerValue: String) -> String {
        (try? DigestAuthorization(parsing: headerValue))?.redacted ?? "<redacted>"
    }

    private func render(response: String) -> String {
        // Built as bytes and turned into a String once: ~40 String appends per header were a
        // measurable share of a load run's CPU (docs/decisions.md D13).
        var out = [UInt8]()
        out.reserveCapacity(320)
        render(response: response, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends ``headerValue``'s bytes (the load engine writes requests as bytes, D13).
    package func appendHeaderValue(to out: inout [UInt8]) { render(response: response, into: &out) }

    private func render(response: String, into out: inout [UInt8]) {
        Self.put("Digest username=", &out)
        Self.putQuoted(username, &out)
        Self.put(", realm=", &out)
        Self.putQuoted(realm, &out)
        Self.put(", nonce=", &out)
        Self.putQuoted(nonce, &out)
        Self.put(", uri=", &out)
        Self.putQuoted(uri, &out)
        if algorithmIsExplicit {
            Self.put(", algorithm=", &out)
            Self.put(algorithm.token, &out)
        }
        if let qop {
            Self.put(", qop=", &out)
            Self.put(qop.token, &out)
            Self.put(", nc=", &out)
            Self.put(DigestMath.nonceCountHex(nonceCount ?? 1), &out)
        }
        if let cnonce {
            Self.put(", cnonce=", &out)
            Self.putQuoted(cnonce, &out)
        }
        Self.put(", response=", &out)
        Self.putQuoted(response, &out)
        if let opaque {
            Self.put(", opaque=", &out)
            Self.putQuoted(opaque, &out)
        }
        if userhash { Self.put(", userhash=true", &out) }
        for param in otherParameters {
            Self.put(", ", &out)
            Self.put(param.name, &out)
            Self.put("=", &out)
            if param.isQuoted { Self.putQuoted(param.value, &out) } else { Self.put(param.value, &out) }
        }
    }

    private static func put(_ text: StaticString, _ out: inout [UInt8]) {
        text.withUTF8Buffer { out.append(contentsOf: $0) }
    }

    private static func put(_ text: String, _ out: inout [UInt8]) {
        var text = text
        text.withUTF8 { out.append(contentsOf: $0) }
    }

    /// `quoted-string` with `"` and `\` escaped as quoted-pairs (RFC 3261 §25.1).
    private static func putQuoted(_ value: String, _ out: inout [UInt8]) {
        var value = value
        out.append(UInt8(ascii: "\""))
        value.withUTF8 { bytes in
            if bytes.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
                for byte in bytes {
                    if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { out.append(UInt8(ascii: "\\")) }
                    out.append(byte)
                }
            } else {
                out.append(contentsOf: bytes)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Rejects values that would break the header line: CR, LF, NUL and other controls.
    static func checkSerializable(_ value: String, _ name: String) throws(DigestError) {
        var value = value
        if value.withUTF8({ $0.contains(where: { $0 < 0x20 || $0 == 0x7F }) }) {
            throw DigestError(.invalidCharacter, name)
        }
    }
}

extension DigestAuthorization: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { redacted }
    public var debugDescription: String { "DigestAuthorization(\(redacted))" }
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "username": username, "realm": realm, "nonce": nonce, "uri": uri, "response": "<redacted>",
                "algorithm": algorithm.token, "qop": qop?.token as Any, "nc": nonceCount as Any,
                "cnonce": cnonce as Any, "opaque": opaque as Any, "userhash": userhash,
            ],
            displayStyle: .struct)
    }
}

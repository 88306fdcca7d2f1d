import SIPCore

/// Verifies compact JWS tokens (RFC 7515 §7.1, RFC 7519) against configured keys and a
/// ``JWTPolicy``; pure apart from OpenSSL's deterministic crypto — the time is a parameter.
///
/// Order (RFC 8725 §3): size and shape; header (`alg` must name the algorithm of a configured key —
/// `none`, unknown algorithms and algorithm confusion are refused before any crypto; `crit` is
/// refused); the signature; only then the claims (`exp` required, `nbf`, `iat`, lifetime cap,
/// `iss`, `aud`). A JSON object with a repeated member name is malformed (RFC 7519 §4: such a
/// token must be rejected or parsed last-wins; we reject, so two parsers cannot disagree).
public struct JWTVerifier: Sendable {
    public let keys: [JWTKey]
    public var policy: JWTPolicy

    /// Longest token accepted (a bearer header is small; this caps the work a stranger can cause).
    public static let maxTokenBytes = 8_192

    /// At most one key per algorithm; the first wins.
    public init(keys: [JWTKey], policy: JWTPolicy = JWTPolicy()) {
        var seen: Set<JWTAlgorithm> = []
        self.keys = keys.filter { seen.insert($0.algorithm).inserted }
        self.policy = policy
    }

    /// The algorithms this verifier accepts (those of its keys).
    public var algorithms: [JWTAlgorithm] { keys.map(\.algorithm) }

    /// The token's claims when it verifies at `now` (seconds since 1970), else the reason.
    public func verify(_ token: String, now: Int64) throws(JWTError) -> JWTClaims {
        let bytes = Array(token.utf8)
        guard bytes.count <= Self.maxTokenBytes else {
            throw JWTError(.malformed, "token over \(Self.maxTokenBytes) bytes")
        }
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(Self.isBase64URL) }) else {
            throw JWTError(.malformed, "not a compact JWS (three non-empty base64url parts)")
        }
        let header = try Self.object(parts[0], "header")
        guard case .string(let name)? = header["alg"] else { throw JWTError(.malformed, "header without alg") }
        guard let algorithm = JWTAlgorithm(rawValue: name) else {
            throw JWTError(
                .algorithmNotAllowed, name == "none" ? "unsigned token (alg none)" : "algorithm \(Self.safe(name))")
        }
        guard let key = keys.first(where: { $0.algorithm == algorithm }) else {
            throw JWTError(.algorithmNotAllowed, "no \(algorithm.rawValue) key is configured")
        }
        if header["crit"] != nil { throw JWTError(.unsupportedHeader, "crit header parameter") }
        guard let signature = Base64URL.decode(String(decoding: parts[2], as: UTF8.self)) else {
            throw JWTError(.malformed, "signature is not base64url")
        }
        let signingInput = Array(bytes[0..<(parts[0].count + 1 + parts[1].count)])
        guard Self.check(signature, over: signingInput, with: key) else {
            throw JWTError(.badSignature, "\(algorithm.rawValue) signature does not verify")
        }
        let claims = try Self.object(parts[1], "claims")
        return try check(claims, now: now)
    }

    static func check(_ signature: [UInt8], over input: [UInt8], with key: JWTKey) -> Bool {
        switch (key.algorithm, key.material) {
        case (.hs256, .secret(let secret)):
            return SecureBytes.equal(JWTCrypto.hmacSHA256(key: secret, data: input), signature)
        case (.es256, .pkey(let pkey)):
            guard let der = JWTCrypto.derSignature(rawP256: signature) else { return false }
            return JWTCrypto.verify(pkey, data: input, derOrRawSignature: der)
        case (.rs256, .pkey(let pkey)):
            return JWTCrypto.verify(pkey, data: input, derOrRawSignature: signature)
        default:
            return false
        }
    }

    func check(_ claims: LineJSON, now: Int64) throws(JWTError) -> JWTClaims {
        let skew = policy.clockSkewSeconds
        guard let exp = try Self.numericDate(claims, "exp") else { throw JWTError(.expired, "no exp claim") }
        let nbf = try Self.numericDate(claims, "nbf")
        let iat = try Self.numericDate(claims, "iat")
        guard now < exp + skew else { throw JWTError(.expired, "expired \(now - exp) s ago") }
        if let nbf, now + skew < nbf { throw JWTError(.notYetValid, "valid only in \(nbf - now) s") }
        if let iat {
            guard iat <= now + skew else { throw JWTError(.badLifetime, "issued \(iat - now) s in the future") }
            guard exp - iat <= policy.maxLifetimeSeconds else {
                throw JWTError(.badLifetime, "lifetime \(exp - iat) s over \(policy.maxLifetimeSeconds) s")
            }
        } else if exp - now > policy.maxLifetimeSeconds + skew {
            throw JWTError(.badLifetime, "expires in \(exp - now) s, over \(policy.maxLifetimeSeconds) s")
        }
        let result = JWTClaims(json: claims, expiresAt: exp, issuedAt: iat, notBefore: nbf)
        if let issuer = policy.issuer, result.issuer != issuer {
            throw JWTError(.wrongIssuer, "iss is not the configured issuer")
        }
        if let audience = policy.audience, !result.strings("aud").contains(audience) {
            throw JWTError(.wrongAudience, "aud does not name the configured audience")
        }
        return result
    }

    /// A NumericDate claim (RFC 7519 §2) in whole seconds; nil when absent. Bounded: a date past
    /// year 5000 or before 1970 is malformed rather than an overflow.
    static func numericDate(_ claims: LineJSON, _ name: String) throws(JWTError) -> Int64? {
        guard let value = claims[name] else { return nil }
        guard case .number(let text) = value, let seconds = Double(text), seconds.isFinite,
            seconds >= 0, seconds < 95_617_584_000
        else { throw JWTError(.malformed, "\(name) is not a NumericDate") }
        return Int64(seconds)
    }

    static func object(_ part: ArraySlice<UInt8>, _ what: String) throws(JWTError) -> LineJSON {
        guard let bytes = Base64URL.decode(String(decoding: part, as: UTF8.self)),
            let json = try? LineJSON.parse(bytes), case .object(let members) = json
        else { throw JWTError(.malformed, "\(what) is not a base64url JSON object") }
        guard Set(members.map(\.0)).count == members.count else {
            throw JWTError(.malformed, "\(what) repeats a member name")
        }
        return json
    }

    static func isBase64URL(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default: false
        }
    }

    /// An attacker's string, made safe for a log line (the one redactor, one line, short).
    static func safe(_ text: String) -> String { Redaction.untrusted(text, limit: 16) }
}

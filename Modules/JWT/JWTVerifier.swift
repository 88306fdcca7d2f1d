import AstraJSON
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

    /// At most one key per algorithm and `kid` (keys without an id: one per algorithm); the
    /// first wins. Rotation: give the old and the new key different ids.
    public init(keys: [JWTKey], policy: JWTPolicy = JWTPolicy()) {
        var seen: Set<String> = []
        self.keys = keys.filter { seen.insert($0.algorithm.rawValue + "/" + ($0.keyID ?? "")).inserted }
        self.policy = policy
    }

    /// The key a token's `alg` and `kid` select (RFC 7515 §4.1.4). When the keys have ids, a `kid`
    /// must match one exactly; keys without ids ignore the token's `kid` (nothing to select by).
    /// Without a `kid`: the algorithm's key without an id, or its only key.
    func key(for algorithm: JWTAlgorithm, kid: String?) throws(JWTError) -> JWTKey {
        let candidates = keys.filter { $0.algorithm == algorithm }
        guard !candidates.isEmpty else {
            throw JWTError(.algorithmNotAllowed, "no \(algorithm.rawValue) key is configured")
        }
        if let kid, candidates.contains(where: { $0.keyID != nil }) {
            guard let key = candidates.first(where: { $0.keyID == kid }) else {
                throw JWTError(.unknownKey, "kid \(Self.safe(kid)) names no configured key")
            }
            return key
        }
        guard !policy.requireKeyID else { throw JWTError(.unknownKey, "no kid in the header") }
        if let plain = candidates.first(where: { $0.keyID == nil }) { return plain }
        guard candidates.count == 1 else { throw JWTError(.unknownKey, "no kid, and several keys could be meant") }
        return candidates[0]
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
        let kid: String?
        switch header["kid"] {
        case nil: kid = nil
        case .string(let text)?: kid = text
        default: throw JWTError(.malformed, "kid is not a string")
        }
        let key = try self.key(for: algorithm, kid: kid)
        if header["crit"] != nil { throw JWTError(.unsupportedHeader, "crit header parameter") }
        guard let signature = Base64URL.decode(String(decoding: parts[2], as: UTF8.self)) else {
            throw JWTError(.malformed, "signature is not base64url")
        }
        let signingInput = Array(bytes[0..<(parts[0].count + 1 + parts[1].count)])
        guard Self.check(signature, over: signingInput, with: key) else {
            throw JWTError(.badSignature, "\(algorithm.rawValue) signature does not verify")
        }
        let claims = try Self.object(parts[1], "claims")
        var result = try check(claims, now: now)
        result.keyID = key.keyID
        return result
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

    func check(_ claims: JSONValue, now: Int64) throws(JWTError) -> JWTClaims {
        let skew = policy.clockSkewSeconds
        let expiry = try Self.numericDate(claims, "exp")
        guard expiry != nil || !policy.requireExpiration else { throw JWTError(.expired, "no exp claim") }
        let exp = expiry ?? Int64.max
        let nbf = try Self.numericDate(claims, "nbf")
        let iat = try Self.numericDate(claims, "iat")
        if let maxAge = policy.maxAgeSeconds {
            guard let iat else { throw JWTError(.badLifetime, "no iat claim") }
            guard now - iat <= maxAge + skew else { throw JWTError(.expired, "issued \(now - iat) s ago, over \(maxAge) s") }
        }
        if expiry != nil { guard now < exp + skew else { throw JWTError(.expired, "expired \(now - exp) s ago") } }
        if let nbf, now + skew < nbf { throw JWTError(.notYetValid, "valid only in \(nbf - now) s") }
        if let iat {
            guard iat <= now + skew else { throw JWTError(.badLifetime, "issued \(iat - now) s in the future") }
            if expiry != nil {
                guard exp - iat <= policy.maxLifetimeSeconds else {
                    throw JWTError(.badLifetime, "lifetime \(exp - iat) s over \(policy.maxLifetimeSeconds) s")
                }
            }
        } else if expiry != nil, exp - now > policy.maxLifetimeSeconds + skew {
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
    static func numericDate(_ claims: JSONValue, _ name: String) throws(JWTError) -> Int64? {
        guard let value = claims[name] else { return nil }
        guard let seconds = value.doubleValue, seconds.isFinite,
            seconds >= 0, seconds < 95_617_584_000
        else { throw JWTError(.malformed, "\(name) is not a NumericDate") }
        return Int64(seconds)
    }

    static func object(_ part: ArraySlice<UInt8>, _ what: String) throws(JWTError) -> JSONValue {
        guard let bytes = Base64URL.decode(String(decoding: part, as: UTF8.self)) else {
            throw JWTError(.malformed, "\(what) is not a base64url JSON object")
        }
        let json: JSONValue
        do {
            json = try JSONValue.parse(bytes, limits: .uniqueKeys)
        } catch {
            if error.code == .duplicateKey { throw JWTError(.malformed, "\(what) repeats a member name") }
            throw JWTError(.malformed, "\(what) is not a base64url JSON object")
        }
        guard case .object = json else { throw JWTError(.malformed, "\(what) is not a base64url JSON object") }
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

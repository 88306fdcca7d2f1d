/// The JWS algorithms the toolkit signs and verifies (RFC 7518 §3.1). `none` is not one of them:
/// an unsigned token is refused by construction, never by a flag.
public enum JWTAlgorithm: String, Sendable, Hashable, CaseIterable {
    /// HMAC with SHA-256 over a shared secret (RFC 7518 §3.2; the secret must be ≥ 256 bits).
    case hs256 = "HS256"
    /// ECDSA P-256 with SHA-256 (RFC 7518 §3.4): the signature is the raw 64-byte `r ‖ s`, not DER.
    case es256 = "ES256"
    /// RSASSA-PKCS1-v1_5 with SHA-256 (RFC 7518 §3.3), keys of 2048 bits or more.
    case rs256 = "RS256"
}

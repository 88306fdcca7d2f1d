/// Why a token was refused, or a key could not be used: a code to compare on and one line of
/// detail. The detail never contains the token, a claim value that could be a secret, or key bytes.
public struct JWTError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// Not three base64url parts, bad base64url, not JSON objects, over the size limit.
        case malformed
        /// `alg` is `none`, unknown, or names a key type no key is configured for (RFC 8725 §3.1:
        /// the key decides the algorithm, never the token).
        case algorithmNotAllowed = "algorithm_not_allowed"
        /// A `crit` header parameter (RFC 7515 §4.1.11: must be understood; we understand none).
        case unsupportedHeader = "unsupported_header"
        /// The header's `kid` names no configured key, or a `kid` is required and missing.
        case unknownKey = "unknown_key"
        case badSignature = "bad_signature"
        /// `exp` is missing (required here) or past, beyond the clock-skew bound (RFC 7519 §4.1.4).
        case expired
        /// `nbf` in the future beyond the skew (RFC 7519 §4.1.5).
        case notYetValid = "not_yet_valid"
        /// `iat` in the future beyond the skew, or `exp` too far from `iat`/now (the lifetime cap).
        case badLifetime = "bad_lifetime"
        /// `iss` is not the configured issuer (RFC 7519 §4.1.1).
        case wrongIssuer = "wrong_issuer"
        /// `aud` does not contain the configured audience (RFC 7519 §4.1.3).
        case wrongAudience = "wrong_audience"
        /// A key file that cannot be read or is not a usable key (type, curve, size).
        case badKey = "bad_key"
        /// An OpenSSL call failed where it should not.
        case crypto
    }

    public let code: Code
    public let detail: String

    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    public var description: String { "\(code.rawValue): \(detail)" }

    public static func == (lhs: JWTError, rhs: JWTError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

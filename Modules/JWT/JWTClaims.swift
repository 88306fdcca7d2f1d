import AstraJSON
import SIPCore

/// The claims of a verified token: the registered ones typed (RFC 7519 §4.1), the rest as JSON.
public struct JWTClaims: Sendable, Hashable {
    /// The whole claims object.
    public let json: JSONValue
    public let subject: String?
    public let issuer: String?
    /// Seconds since 1970 (NumericDate, RFC 7519 §2), whole seconds (fractions dropped);
    /// `Int64.max` for a token without `exp` under a policy that allows it (APNs).
    public let expiresAt: Int64
    public let issuedAt: Int64?
    public let notBefore: Int64?
    /// The `kid` of the key that verified the token (from its header), if the key has one.
    public internal(set) var keyID: String?

    init(json: JSONValue, expiresAt: Int64, issuedAt: Int64?, notBefore: Int64?) {
        self.json = json
        subject = Self.string(json["sub"])
        issuer = Self.string(json["iss"])
        self.expiresAt = expiresAt
        self.issuedAt = issuedAt
        self.notBefore = notBefore
    }

    /// A string claim, or nil when absent or not a string.
    public func string(_ name: String) -> String? { Self.string(json[name]) }

    /// A claim that is a string or an array of strings (as `aud` may be, RFC 7519 §4.1.3).
    public func strings(_ name: String) -> [String] {
        switch json[name] {
        case .string(let s)?: return [s]
        case .array(let items)?: return items.compactMap { Self.string($0) }
        default: return []
        }
    }

    static func string(_ value: JSONValue?) -> String? { value?.stringValue }
}

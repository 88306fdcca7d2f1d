/// Quality of protection (RFC 7616 §3.3, RFC 3261 §22.4).
public enum DigestQoP: String, Sendable, Hashable, CaseIterable {
    /// Authentication only: HA2 = H(method:uri).
    case auth
    /// Authentication with integrity: HA2 = H(method:uri:H(entity-body)) (RFC 7616 §3.4.3).
    case authInt = "auth-int"

    /// Parses a qop token case-insensitively; nil for unknown tokens (ignored per RFC 7616 §3.3).
    public init?(token: some StringProtocol) {
        switch token.lowercased() {
        case "auth": self = .auth
        case "auth-int": self = .authInt
        default: return nil
        }
    }

    /// The token as sent.
    public var token: String { rawValue }
}

/// The `algorithm` parameter: RFC 7616 §3.3 (MD5, SHA-256, SHA-512-256 and their `-sess`
/// variants), registered for SIP by RFC 8760 §2. Absent means MD5 (RFC 2617 §3.2.1).
public enum DigestAlgorithm: Sendable, Hashable, CaseIterable {
    case md5
    case md5Sess
    case sha256
    case sha256Sess
    case sha512_256
    case sha512_256Sess

    /// Parses the token case-insensitively (RFC 7616 §3.3); nil when unsupported.
    public init?(token: some StringProtocol) {
        switch token.lowercased() {
        case "md5": self = .md5
        case "md5-sess": self = .md5Sess
        case "sha-256": self = .sha256
        case "sha-256-sess": self = .sha256Sess
        case "sha-512-256": self = .sha512_256
        case "sha-512-256-sess": self = .sha512_256Sess
        default: return nil
        }
    }

    /// The token as the IANA "HTTP Digest Hash Algorithms" registry spells it.
    public var token: String {
        switch self {
        case .md5: "MD5"
        case .md5Sess: "MD5-sess"
        case .sha256: "SHA-256"
        case .sha256Sess: "SHA-256-sess"
        case .sha512_256: "SHA-512-256"
        case .sha512_256Sess: "SHA-512-256-sess"
        }
    }

    /// The hash function H (RFC 7616 §3.4).
    package var hash: DigestHash {
        switch self {
        case .md5, .md5Sess: .md5
        case .sha256, .sha256Sess: .sha256
        case .sha512_256, .sha512_256Sess: .sha512_256
        }
    }

    /// `-sess`: HA1 = H(H(user:realm:password):nonce:cnonce) (RFC 7616 §3.4.2).
    public var isSession: Bool {
        switch self {
        case .md5Sess, .sha256Sess, .sha512_256Sess: true
        case .md5, .sha256, .sha512_256: false
        }
    }

    /// RFC 8760 §2.4 preference: SHA-512-256 > SHA-256 > MD5. A `-sess` variant ranks with its
    /// hash; among equals the server's order decides (RFC 7616 §3.7: first supported wins).
    public var strength: Int {
        switch hash {
        case .md5: 1
        case .sha256: 2
        case .sha512_256: 3
        }
    }
}

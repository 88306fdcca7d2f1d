/// What a verified token must also satisfy besides its signature (RFC 7519 §4.1, RFC 8725 §3.8–3.9).
public struct JWTPolicy: Sendable, Hashable {
    /// `iss` must equal this when set.
    public var issuer: String?
    /// `aud` (a string or an array) must contain this when set.
    public var audience: String?
    /// Clock-skew bound applied to `exp`, `nbf` and `iat`, in seconds (0…300).
    public var clockSkewSeconds: Int64
    /// Longest accepted lifetime: `exp − iat` (or `exp − now` without `iat`), in seconds. The
    /// platform's role tokens live 24 h; a token valid for years is refused even when signed.
    public var maxLifetimeSeconds: Int64
    /// `exp` must be present (bearer tokens). APNs provider tokens carry none: their life is
    /// counted from `iat` (``maxAgeSeconds``).
    public var requireExpiration = true
    /// When set, `iat` is required and a token issued longer ago than this (beyond the skew) is
    /// expired — APNs: "older than one hour" → 403 ExpiredProviderToken.
    public var maxAgeSeconds: Int64?
    /// The token header must name a `kid` of a configured key (APNs: the key id of the `.p8`).
    public var requireKeyID = false

    public init(
        issuer: String? = nil, audience: String? = nil, clockSkewSeconds: Int64 = 60,
        maxLifetimeSeconds: Int64 = 86_400
    ) {
        self.issuer = issuer
        self.audience = audience
        self.clockSkewSeconds = clockSkewSeconds
        self.maxLifetimeSeconds = maxLifetimeSeconds
    }

    /// The range `--jwt-clock-skew-s` accepts.
    public static let skewRange: ClosedRange<Int64> = 0...300
}

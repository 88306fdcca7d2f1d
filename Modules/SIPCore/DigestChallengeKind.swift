/// Which header pair a challenge travels in (RFC 3261 §22.2 / §22.3).
public enum DigestChallengeKind: Sendable, Hashable, CaseIterable {
    /// 401: `WWW-Authenticate` answered with `Authorization` (UAS / registrar, §22.2).
    case server
    /// 407: `Proxy-Authenticate` answered with `Proxy-Authorization` (proxy, §22.3).
    case proxy

    /// The challenge header name.
    public var challengeHeaderName: String {
        switch self {
        case .server: "WWW-Authenticate"
        case .proxy: "Proxy-Authenticate"
        }
    }

    /// The credentials header name.
    public var authorizationHeaderName: String {
        switch self {
        case .server: "Authorization"
        case .proxy: "Proxy-Authorization"
        }
    }
}

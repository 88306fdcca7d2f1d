import AstraJSON
import SIPCore
import HTTPLite
import JWT
import WakeGateway

/// A per-run HS256 key for in-process gateways, and bearer tokens minted with it.
enum TestAuth {
    static let secret = KeyMaterial.bytes(32)
    static var auth: TokenAPIAuth { TokenAPIAuth(verifier: JWTVerifier(keys: [try! JWTKey.hmac(secret: secret)])) }

    static func bearer(_ endpoint: String? = "1002", role: String = "user", lifetime: Int64 = 3_600) -> String {
        let now = WallClock.nowMs() / 1_000
        var claims: JSONObject = ["iat": .int(now), "exp": .int(now + lifetime)]
        if let endpoint { claims["asterisk_endpoint"] = .string(endpoint) }
        claims["role"] = .string(role)
        return try! JWTSigner(key: try! JWTKey.hmac(secret: secret)).sign(claims)
    }

    static func authorization(_ endpoint: String? = "1002", role: String = "user") -> HTTPHeader {
        HTTPHeader("Authorization", "Bearer " + bearer(endpoint, role: role))
    }
}

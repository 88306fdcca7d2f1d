import AstraTestSupport
import Foundation
import HTTPLite
import JWT
import Testing

@testable import WakeGateway

/// The token endpoints behind bearer JWTs (docs/wake-gateway.md "Authentication"): every refusal
/// on each endpoint, with tokens minted independently (scripts/mint-jwt.py: Python stdlib +
/// openssl) for HS256 and ES256, and the status endpoint giving strangers nothing to tell users
/// apart by. Pure: `handleHTTP` on a gateway with no traffic.
@Suite struct WakeGatewayAuthTests {
    static let token = String(repeating: "ab12", count: 16)
    static let registerBody =
        #"{"asterisk_endpoint":"1002","token":"\#(token)","environment":"sandbox","bundle_id":"com.example.astra","platform":"ios"}"#

    struct Rig {
        let keys: IndependentJWT
        let gateway: WakeGatewayServer<TestClock>

        static func make(org: String? = nil) async throws -> Rig {
            let keys = try await IndependentJWT.make()
            var configuration = WakeGatewayConfiguration()
            (configuration.sipPort, configuration.httpPort, configuration.apnsDevicePort) = (0, 0, 0)
            configuration.auth = TokenAPIAuth(
                verifier: JWTVerifier(
                    keys: [try JWTKey.hmac(secretFile: keys.secretFile), try JWTKey.publicKey(file: keys.ecPublic)]),
                org: org)
            let gateway = try WakeGatewayServer(configuration: configuration, clock: TestClock())
            return Rig(keys: keys, gateway: gateway)
        }

        /// A token from the independent minter: `claims` gets `exp`/`iat` unless it has them.
        func mint(_ claims: String, alg: String = "HS256", exp: Int64 = 3_600, keyFile: String? = nil) async throws
            -> String
        {
            let now = Int64(Date().timeIntervalSince1970)
            let body = claims.dropLast() + (claims.count > 2 ? "," : "") + "\"iat\":\(now),\"exp\":\(now + exp)}"
            return try await keys.mint(alg, claims: String(body), keyFile: keyFile)
        }

        func call(_ method: String, _ target: String, _ body: String = "", bearer: String? = nil, header: String? = nil)
            async throws -> HTTPResponse
        {
            var headers = [HTTPHeader("Host", "h"), HTTPHeader("Content-Type", "application/json")]
            if let bearer { headers.append(HTTPHeader("Authorization", "Bearer " + bearer)) }
            if let header { headers.append(HTTPHeader("Authorization", header)) }
            return await gateway.handleHTTP(
                try HTTPRequest(method: method, target: target, headers: headers, body: Array(body.utf8)))
        }
    }

    /// The three token requests, about endpoint 1002.
    static let endpoints: [(String, String, String)] = [
        ("POST", "/api/v1/users/voip-push-token", registerBody),
        ("GET", "/api/v1/users/voip-push-status?asterisk_endpoint=1002&token=\(token)", ""),
        ("DELETE", "/api/v1/users/voip-push-token?asterisk_endpoint=1002", ""),
        ("DELETE", "/api/v1/users/voip-push-grant?asterisk_endpoint=1002", ""),
    ]

    @Test func everyTokenEndpointRefusesBadTokens() async throws {
        let rig = try await Rig.make()
        defer { rig.keys.remove() }
        let expired = try await rig.mint(#"{"asterisk_endpoint":"1002"}"#, exp: -120)
        let other = try await rig.mint(#"{"asterisk_endpoint":"1003"}"#)
        let forgedKey = rig.keys.directory.appendingPathComponent("forged").path
        try Data("not-the-gateway-secret-but-long-enough-32\n".utf8).write(to: URL(fileURLWithPath: forgedKey))
        let wrongSignature = try await rig.mint(#"{"asterisk_endpoint":"1002"}"#, keyFile: forgedKey)
        let unsigned = try await rig.keys.mint(
            "none", claims: #"{"asterisk_endpoint":"1002","exp":9999999999}"#, header: #"{"alg":"none"}"#) + "x"
        let confused = try await rig.mint(#"{"asterisk_endpoint":"1002"}"#, keyFile: rig.keys.ecPublic)
        for (method, target, body) in Self.endpoints {
            let none = try await rig.call(method, target, body)
            #expect(none.status == 401, "\(method) \(target)")
            #expect(none.header("WWW-Authenticate") == #"Bearer realm="astra-wakegw""#)
            for bad in [expired, wrongSignature, unsigned, confused] {
                let response = try await rig.call(method, target, body, bearer: bad)
                #expect(response.status == 401, "\(method) \(target)")
                #expect(response.header("WWW-Authenticate")?.contains(#"error="invalid_token""#) == true)
            }
            #expect(try await rig.call(method, target, body, header: "Basic MTAwMjpzZWNyZXQ=").status == 401)
            let forbidden = try await rig.call(method, target, body, bearer: other)
            #expect(forbidden.status == 403, "\(method) \(target)")
            #expect(forbidden.header("WWW-Authenticate")?.contains("insufficient_scope") == true)
        }
        #expect(await rig.gateway.tokens.registration(for: "1002") == nil)  // nothing was registered
        #expect(await rig.gateway.counters["auth_refused"] == Self.endpoints.count * 7)
    }

    @Test(arguments: ["HS256", "ES256"])
    func validTokenRegistersReadsAndDeletes(alg: String) async throws {
        let rig = try await Rig.make()
        defer { rig.keys.remove() }
        let own = try await rig.mint(#"{"asterisk_endpoint":"1002","role":"user"}"#, alg: alg)
        let (post, status, delete) = (Self.endpoints[0], Self.endpoints[1], Self.endpoints[2])
        #expect(try await rig.call(post.0, post.1, post.2, bearer: own).status == 200)
        let read = try await rig.call(status.0, status.1, bearer: own)
        #expect(read.status == 200)
        #expect(String(decoding: read.body, as: UTF8.self).contains(#""token_matches":true"#))
        #expect(!String(decoding: read.body, as: UTF8.self).contains(Self.token))
        #expect(try await rig.call(delete.0, delete.1, bearer: own).status == 200)
        #expect(try await rig.call(status.0, status.1, bearer: own).status == 404)  // own endpoint: not registered
        // An org admin may manage any endpoint of this gateway.
        let admin = try await rig.mint(#"{"role":"org_admin"}"#, alg: alg)
        #expect(try await rig.call(post.0, post.1, post.2, bearer: admin).status == 200)
        #expect(await rig.gateway.tokens.registration(for: "1002") != nil)
    }

    /// A stranger cannot tell a registered user from an unknown one, or a right token from a
    /// wrong one: without a valid token, and with a valid token for another endpoint, the answers
    /// for 1002 (registered) and 1099 (never seen) are byte-identical.
    @Test func statusIsNoOracle() async throws {
        let rig = try await Rig.make()
        defer { rig.keys.remove() }
        let own = try await rig.mint(#"{"asterisk_endpoint":"1002"}"#)
        #expect(try await rig.call("POST", Self.endpoints[0].1, Self.registerBody, bearer: own).status == 200)
        let stranger = try await rig.mint(#"{"asterisk_endpoint":"1050"}"#)
        for bearer in [nil, "garbage.token.here", stranger] {
            var answers: [HTTPResponse] = []
            for target in [
                "/api/v1/users/voip-push-status?asterisk_endpoint=1002&token=\(Self.token)",
                "/api/v1/users/voip-push-status?asterisk_endpoint=1002&token=\(String(repeating: "cd", count: 32))",
                "/api/v1/users/voip-push-status?asterisk_endpoint=1099&token=\(Self.token)",
            ] {
                answers.append(try await rig.call("GET", target, bearer: bearer))
            }
            #expect(answers[0].status == (bearer == stranger ? 403 : 401))
            #expect(answers.allSatisfy { $0 == answers[0] })
        }
    }

    @Test func orgMustMatchWhenConfigured() async throws {
        let rig = try await Rig.make(org: "st-mary")
        defer { rig.keys.remove() }
        let wrong = try await rig.mint(#"{"asterisk_endpoint":"1002","org":"other"}"#)
        let missing = try await rig.mint(#"{"asterisk_endpoint":"1002"}"#)
        let right = try await rig.mint(#"{"asterisk_endpoint":"1002","org":"st-mary"}"#)
        #expect(try await rig.call("POST", Self.endpoints[0].1, Self.registerBody, bearer: wrong).status == 403)
        #expect(try await rig.call("POST", Self.endpoints[0].1, Self.registerBody, bearer: missing).status == 403)
        #expect(try await rig.call("POST", Self.endpoints[0].1, Self.registerBody, bearer: right).status == 200)
    }

    /// The ack needs no token; a guessed push-id (any form) is 404 and counted.
    @Test func guessedPushIDsAreUnknown() async throws {
        let rig = try await Rig.make()
        defer { rig.keys.remove() }
        for guess in [
            "p-1", "p" + String(repeating: "0", count: 48), "p" + String(repeating: "A", count: 48), "", "p",
            String(repeating: "x", count: 512),
        ] {
            let response = try await rig.call("POST", "/api/v1/users/voip-push-ack", #"{"push_id":"\#(guess)"}"#)
            #expect(response.status == (guess.isEmpty ? 400 : 404), "\(guess)")
        }
    }
}

/// ``PushGrants`` alone: format, single use, expiry, revocation, redaction.
@Suite struct PushGrantsTests {
    @Test func grantsAreRandomSingleUseAndExpire() {
        var grants = PushGrants()
        let a = grants.issue(call: 1, expiresMs: 1_000)
        let b = grants.issue(call: 2, expiresMs: 1_000)
        #expect(a.count == 49 && a.hasPrefix("p") && a != b)
        var many: Set<String> = []
        for _ in 0..<200 { many.insert(grants.issue(call: 9, expiresMs: 5)) }
        #expect(many.count == 200)
        // A wrong verifier with the right selector finds nothing and leaves the grant alone.
        let tampered = String(a.prefix(17)) + String(repeating: "0", count: 32)
        let r1 = grants.redeem(tampered, nowMs: 0)
        #expect(r1 == nil)
        let r2 = grants.redeem(a.uppercased(), nowMs: 0)
        #expect(r2 == nil)
        let r3 = grants.redeem(a, nowMs: 999)
        #expect(r3 == 1)
        let r4 = grants.redeem(a, nowMs: 999)  // replay
        #expect(r4 == nil)
        let r5 = grants.redeem(b, nowMs: 1_000)  // expired with the ack window
        #expect(r5 == nil)
        let c = grants.issue(call: 3, expiresMs: 10_000)
        grants.revoke(c)
        let r6 = grants.redeem(c, nowMs: 0)
        #expect(r6 == nil)
        grants.expire(nowMs: 10)
        #expect(grants.count == 0)
        #expect(PushGrants.redacted(a) == String(a.prefix(17)) + "…")
    }
}

/// ``PushRateLimiter``: burst, refill, and independent users.
@Suite struct PushRateLimitTests {
    @Test func burstThenRefill() {
        var limiter = PushRateLimiter(PushRateLimit(burst: 5, perMinute: 10))
        for _ in 0..<5 {
            let ok = limiter.allow("1002", nowMs: 0)
            #expect(ok)
        }
        let r7 = limiter.allow("1002", nowMs: 0)
        #expect(!r7)
        let r8 = limiter.allow("1003", nowMs: 0)
        #expect(r8)
        let r9 = limiter.allow("1002", nowMs: 5_999)
        #expect(!r9)
        let r10 = limiter.allow("1002", nowMs: 6_000)  // one per 6 s
        #expect(r10)
        let r11 = limiter.allow("1002", nowMs: 6_001)
        #expect(!r11)
        // A storm of 1000 pushes over 59.94 s gets the burst plus the refill: 5 + 9 (the tenth
        // refilled token would come at 60 s).
        var storm = PushRateLimiter(PushRateLimit())
        var allowed = 0
        for i in 0..<1_000 where storm.allow("1002", nowMs: Int64(i) * 60) { allowed += 1 }
        #expect(allowed == 14)
    }
}

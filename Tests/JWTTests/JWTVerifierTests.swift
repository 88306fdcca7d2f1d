import AstraTestSupport
import Foundation
import SIPCore
import Testing

@testable import JWT

/// JWS verification against tokens minted by `openssl` + Python (scripts/mint-jwt.py) and by our
/// own signer: each algorithm, and every refusal RFC 8725 asks for.
@Suite struct JWTVerifierTests {
    static let now: Int64 = 1_780_000_000

    static func claims(exp: Int64 = now + 3_600, iat: Int64? = now, extra: String = "") -> String {
        var text = "{\"sub\":\"1002\",\"exp\":\(exp)"
        if let iat { text += ",\"iat\":\(iat)" }
        return text + extra + "}"
    }

    struct Fixture {
        let keys: IndependentJWT
        let hmac: JWTKey
        let ec: JWTKey
        let rsa: JWTKey
        var all: JWTVerifier { JWTVerifier(keys: [hmac, ec, rsa]) }

        static func make() async throws -> Fixture {
            let keys = try await IndependentJWT.make()
            return Fixture(
                keys: keys, hmac: try JWTKey.hmac(secretFile: keys.secretFile),
                ec: try JWTKey.publicKey(file: keys.ecPublic), rsa: try JWTKey.publicKey(file: keys.rsaPublic))
        }
    }

    static func refusal(_ verifier: JWTVerifier, _ token: String, now: Int64 = now) -> JWTError.Code? {
        do {
            _ = try verifier.verify(token, now: now)
            return nil
        } catch { return error.code }
    }

    @Test(arguments: ["HS256", "ES256", "RS256"])
    func independentTokensVerify(alg: String) async throws {
        let f = try await Fixture.make()
        defer { f.keys.remove() }
        let token = try await f.keys.mint(alg, claims: Self.claims(extra: ",\"aud\":[\"a\",\"wakegw\"]"))
        var verifier = f.all
        verifier.policy.audience = "wakegw"
        let claims = try verifier.verify(token, now: Self.now)
        #expect(claims.subject == "1002")
        #expect(claims.expiresAt == Self.now + 3_600)
        // Tampered claims (same signature) fail.
        var parts = token.split(separator: ".").map(String.init)
        parts[1] = Base64URL.encode(Array(Self.claims(extra: ",\"sub\":\"1003\"").utf8))
        #expect(Self.refusal(verifier, parts.joined(separator: ".")) == .badSignature)
        // Our own signer's tokens verify too (ES256/RS256 with the private keys).
        let privateKey =
            alg == "HS256"
            ? f.hmac : try JWTKey.privateKey(file: alg == "ES256" ? f.keys.ecPrivate : f.keys.rsaPrivate)
        let own = try JWTSigner(key: privateKey).sign([
            "sub": .string("1002"), "exp": .int(Self.now + 60), "aud": .string("wakegw"),
        ])
        #expect(try verifier.verify(own, now: Self.now).subject == "1002")
    }

    @Test func ourES256SignaturesAreRawRS() async throws {
        let f = try await Fixture.make()
        defer { f.keys.remove() }
        let signer = try JWTSigner(key: try JWTKey.privateKey(file: f.keys.ecPrivate))
        let token = try signer.sign(["exp": .int(Self.now + 60)])
        let signature = Base64URL.decode(token.split(separator: ".")[2])!
        #expect(signature.count == 64)
        // openssl verifies our signature once converted to DER (independent check of r||s).
        let input = token.split(separator: ".").prefix(2).joined(separator: ".")
        let dir = f.keys.directory
        try Data(input.utf8).write(to: dir.appendingPathComponent("input"))
        try Data(JWTCrypto.derSignature(rawP256: signature)!).write(to: dir.appendingPathComponent("sig.der"))
        let result = try await ChildProcess.run(
            command: "openssl",
            ["dgst", "-sha256", "-verify", f.keys.ecPublic, "-signature", dir.appendingPathComponent("sig.der").path,
             dir.appendingPathComponent("input").path])
        #expect(result.status == 0, "\(result.text) \(result.stderr)")
    }

    @Test func unsignedAndUnknownAlgorithmsAreRefused() async throws {
        let f = try await Fixture.make()
        defer { f.keys.remove() }
        let none = try await f.keys.mint("none", claims: Self.claims(), header: #"{"alg":"none","typ":"JWT"}"#)
        #expect(Self.refusal(f.all, none) == .malformed)  // empty signature part
        let noneSigned = none + "AAAA"
        #expect(Self.refusal(f.all, noneSigned) == .algorithmNotAllowed)
        let hs512 = try await f.keys.mint("HS256", claims: Self.claims(), header: #"{"alg":"HS512"}"#)
        #expect(Self.refusal(f.all, hs512) == .algorithmNotAllowed)
        let lower = try await f.keys.mint("HS256", claims: Self.claims(), header: #"{"alg":"hs256"}"#)
        #expect(Self.refusal(f.all, lower) == .algorithmNotAllowed)
        let crit = try await f.keys.mint("HS256", claims: Self.claims(), header: #"{"alg":"HS256","crit":["exp"]}"#)
        #expect(Self.refusal(f.all, crit) == .unsupportedHeader)
    }

    /// RFC 8725 §2.1 algorithm confusion: an HS256 token whose "secret" is the RSA/EC public key
    /// PEM must fail when the verifier only has the public key.
    @Test func publicKeyAsHMACSecretIsRefused() async throws {
        let f = try await Fixture.make()
        defer { f.keys.remove() }
        for publicFile in [f.keys.rsaPublic, f.keys.ecPublic] {
            let forged = try await f.keys.mint("HS256", claims: Self.claims(), keyFile: publicFile)
            #expect(Self.refusal(JWTVerifier(keys: [f.rsa, f.ec]), forged) == .algorithmNotAllowed)
        }
        // An RS256 token presented to an ES256-only verifier, and the other way round.
        let rs = try await f.keys.mint("RS256", claims: Self.claims())
        #expect(Self.refusal(JWTVerifier(keys: [f.ec]), rs) == .algorithmNotAllowed)
        let es = try await f.keys.mint("ES256", claims: Self.claims(), header: #"{"alg":"RS256"}"#)
        #expect(Self.refusal(JWTVerifier(keys: [f.rsa]), es) == .badSignature)
        // Another secret's HS256 token.
        try Data("0123456789abcdef0123456789abcdef-other\n".utf8).write(
            to: f.keys.directory.appendingPathComponent("other"))
        let other = try await f.keys.mint(
            "HS256", claims: Self.claims(), keyFile: f.keys.directory.appendingPathComponent("other").path)
        #expect(Self.refusal(f.all, other) == .badSignature)
    }

    @Test func timeClaimsWithSkew() async throws {
        let f = try await Fixture.make()
        defer { f.keys.remove() }
        let v = f.all  // skew 60 s, lifetime 24 h
        let cases: [(String, JWTError.Code?)] = [
            (Self.claims(exp: Self.now - 30, iat: Self.now - 3_600), nil),  // expired within the skew
            (Self.claims(exp: Self.now - 61, iat: Self.now - 3_600), .expired),
            ("{\"sub\":\"1002\"}", .expired),  // exp required
            (Self.claims(extra: ",\"nbf\":\(Self.now + 59)"), nil),
            (Self.claims(extra: ",\"nbf\":\(Self.now + 120)"), .notYetValid),
            (Self.claims(exp: Self.now + 7_200, iat: Self.now + 120), .badLifetime),  // issued in the future
            (Self.claims(exp: Self.now + 90_000, iat: Self.now), .badLifetime),  // over 24 h
            (Self.claims(exp: Self.now + 90_000, iat: nil), .badLifetime),
            (Self.claims(exp: Self.now + 86_400, iat: Self.now), nil),
            ("{\"exp\":\"soon\"}", .malformed),
            ("{\"exp\":1e300}", .malformed),
            ("{\"exp\":\(Self.now + 60),\"exp\":\(Self.now + 99_999_999)}", .malformed),  // repeated member
        ]
        for (claims, expected) in cases {
            let token = try await f.keys.mint("HS256", claims: claims)
            #expect(Self.refusal(v, token) == expected, "\(claims)")
        }
    }

    @Test func issuerAndAudience() async throws {
        let f = try await Fixture.make()
        defer { f.keys.remove() }
        var v = f.all
        v.policy = JWTPolicy(issuer: "https://platform.example", audience: "astra-wakegw")
        let good = try await f.keys.mint(
            "HS256", claims: Self.claims(extra: #","iss":"https://platform.example","aud":"astra-wakegw""#))
        #expect(Self.refusal(v, good) == nil)
        let badIss = try await f.keys.mint(
            "HS256", claims: Self.claims(extra: #","iss":"https://evil.example","aud":"astra-wakegw""#))
        #expect(Self.refusal(v, badIss) == .wrongIssuer)
        let noAud = try await f.keys.mint("HS256", claims: Self.claims(extra: #","iss":"https://platform.example""#))
        #expect(Self.refusal(v, noAud) == .wrongAudience)
    }

    @Test func malformedTokensNeverTrap() async throws {
        let f = try await Fixture.make()
        defer { f.keys.remove() }
        for token in [
            "", ".", "..", "a.b", "a.b.c.d", "eyJ.eyJ.", "!!!.eyJ.abc", String(repeating: "a", count: 9_000),
            "eyJhbGciOiJIUzI1NiJ9.bm90IGpzb24.c2ln", "W10.W10.W10",
        ] {
            #expect(Self.refusal(f.all, token) != nil, "\(token.prefix(20))")
        }
    }

    @Test func keysAreCheckedWhenLoaded() async throws {
        let f = try await Fixture.make()
        defer { f.keys.remove() }
        #expect(throws: JWTError(.badKey, "")) { try JWTKey.hmac(secret: Array("short".utf8)) }
        #expect(throws: JWTError(.badKey, "")) { try JWTKey.publicKey(file: "/dev/null") }
        #expect(throws: JWTError(.badKey, "")) { try JWTKey.publicKey(file: "/nonexistent") }
        #expect(throws: JWTError(.badKey, "")) { try JWTKey.publicKey(file: "/dev/zero") }
        #expect(throws: JWTError(.badKey, "")) { try JWTKey.publicKey(file: f.keys.ecPrivate) }
        #expect(throws: JWTError(.badKey, "")) { try JWTSigner(key: f.ec) }
        let p384 = f.keys.directory.appendingPathComponent("p384.pem").path
        _ = try await ChildProcess.run(
            command: "openssl", ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384", "-out", p384])
        #expect(throws: JWTError(.badKey, "")) { try JWTKey.privateKey(file: p384) }
    }
}

import AstraTestSupport
import Foundation
import SIPCore
import Testing

@testable import JWT

/// `kid` (RFC 7515 §4.1.4) and provider-token policies: the APNs shape — ES256, `kid` = the key
/// id, claims `iss` + `iat` and no `exp`, too old after an hour — checked against tokens minted
/// independently (scripts/mint-jwt.py with a header of its own).
@Suite struct JWTKeyIDTests {
    static let now: Int64 = 1_780_000_000

    /// The APNs emulator's policy: `kid` required, no `exp`, one hour from `iat`.
    static var apnsPolicy: JWTPolicy {
        var policy = JWTPolicy(issuer: "ASTRATEAM1", clockSkewSeconds: 60)
        policy.requireExpiration = false
        policy.maxAgeSeconds = 3_600
        policy.requireKeyID = true
        return policy
    }

    static func refusal(_ verifier: JWTVerifier, _ token: String, now: Int64 = now) -> JWTError.Code? {
        do {
            _ = try verifier.verify(token, now: now)
            return nil
        } catch { return error.code }
    }

    @Test func apnsProviderTokensVerifyByKeyID() async throws {
        let keys = try await IndependentJWT.make()
        defer { keys.remove() }
        let key = try JWTKey.publicKey(file: keys.ecPublic).identified(as: "ABC123DEFG")
        let verifier = JWTVerifier(keys: [key], policy: Self.apnsPolicy)
        let header = #"{"alg":"ES256","kid":"ABC123DEFG"}"#
        let good = try await keys.mint("ES256", claims: #"{"iss":"ASTRATEAM1","iat":\#(Self.now - 10)}"#, header: header)
        let claims = try verifier.verify(good, now: Self.now)
        #expect(claims.keyID == "ABC123DEFG")
        #expect(claims.issuer == "ASTRATEAM1")
        #expect(claims.expiresAt == Int64.max)
        // An hour and a skew later it is expired (APNs: ExpiredProviderToken).
        #expect(Self.refusal(verifier, good, now: Self.now + 3_600 + 60) == .expired)
        #expect(Self.refusal(verifier, good, now: Self.now + 3_500) == nil)
        let otherKid = try await keys.mint(
            "ES256", claims: #"{"iss":"ASTRATEAM1","iat":\#(Self.now)}"#, header: #"{"alg":"ES256","kid":"ZZZ9999999"}"#)
        #expect(Self.refusal(verifier, otherKid) == .unknownKey)
        let noKid = try await keys.mint("ES256", claims: #"{"iss":"ASTRATEAM1","iat":\#(Self.now)}"#)
        #expect(Self.refusal(verifier, noKid) == .unknownKey)
        let noIat = try await keys.mint("ES256", claims: #"{"iss":"ASTRATEAM1"}"#, header: header)
        #expect(Self.refusal(verifier, noIat) == .badLifetime)
        let wrongTeam = try await keys.mint("ES256", claims: #"{"iss":"OTHERTEAM1","iat":\#(Self.now)}"#, header: header)
        #expect(Self.refusal(verifier, wrongTeam) == .wrongIssuer)
        let future = try await keys.mint("ES256", claims: #"{"iss":"ASTRATEAM1","iat":\#(Self.now + 600)}"#, header: header)
        #expect(Self.refusal(verifier, future) == .badLifetime)
        let badKidType = try await keys.mint(
            "ES256", claims: #"{"iss":"ASTRATEAM1","iat":\#(Self.now)}"#, header: #"{"alg":"ES256","kid":7}"#)
        #expect(Self.refusal(verifier, badKidType) == .malformed)
    }

    @Test func ourSignerPutsTheKeyIDInTheHeader() async throws {
        let keys = try await IndependentJWT.make()
        defer { keys.remove() }
        let signing = try JWTKey.privateKey(file: keys.ecPrivate).identified(as: "ABC123DEFG")
        let token = try JWTSigner(key: signing).sign(["iss": .string("ASTRATEAM1"), "iat": .int(Self.now)])
        let header = try #require(Base64URL.decode(token.split(separator: ".")[0]))
        #expect(String(decoding: header, as: UTF8.self) == #"{"alg":"ES256","typ":"JWT","kid":"ABC123DEFG"}"#)
        // Verified with the public half of the same key (how the emulator is configured from a .p8).
        let verifier = JWTVerifier(keys: [try signing.publicHalf()], policy: Self.apnsPolicy)
        #expect(try verifier.verify(token, now: Self.now).keyID == "ABC123DEFG")
        #expect(try signing.publicHalf().canSign == false)
    }

    /// Rotation: two keys of one algorithm, told apart by `kid`; a token for either verifies, a
    /// token signed by one but naming the other does not.
    @Test func rotationSelectsTheKeyByID() async throws {
        let a = try await IndependentJWT.make()
        let b = try await IndependentJWT.make()
        defer {
            a.remove()
            b.remove()
        }
        let verifier = JWTVerifier(keys: [
            try JWTKey.publicKey(file: a.ecPublic).identified(as: "old"),
            try JWTKey.publicKey(file: b.ecPublic).identified(as: "new"),
        ])
        #expect(verifier.keys.count == 2)
        let claims = #"{"sub":"1002","exp":\#(Self.now + 60)}"#
        let old = try await a.mint("ES256", claims: claims, header: #"{"alg":"ES256","kid":"old"}"#)
        let new = try await b.mint("ES256", claims: claims, header: #"{"alg":"ES256","kid":"new"}"#)
        let swapped = try await b.mint("ES256", claims: claims, header: #"{"alg":"ES256","kid":"old"}"#)
        let none = try await b.mint("ES256", claims: claims)
        #expect(Self.refusal(verifier, old) == nil)
        #expect(Self.refusal(verifier, new) == nil)
        #expect(Self.refusal(verifier, swapped) == .badSignature)
        #expect(Self.refusal(verifier, none) == .unknownKey)
        // Keys without ids ignore a token's kid (a platform may send one nobody configured).
        let plain = JWTVerifier(keys: [try JWTKey.publicKey(file: b.ecPublic)])
        #expect(Self.refusal(plain, new) == nil)
    }
}

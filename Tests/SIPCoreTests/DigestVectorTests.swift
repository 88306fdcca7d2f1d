import Foundation
import Testing

@testable import SIPCore

/// One entry of Vectors/digest_vectors.json (see /work/shared/vectors/README.md "Digest").
struct DigestVector: Decodable, Sendable, CustomTestStringConvertible {
    struct Values: Decodable, Sendable {
        var HA1: String?
        var HA2: String?
        var response: String
        var userhash_username: String?
    }

    var id: String
    var algorithm: String
    var qop: String?
    var username: String
    var realm: String
    var password: String
    var method: String
    var uri: String
    var nonce: String
    var nc: String?
    var cnonce: String?
    var opaque: String?
    var charset: String?
    var userhash: Bool?
    var username_star: String?
    var username_utf8_hex: String?
    var entity_body: String?
    var entity_body_md5: String?
    var challenge: String?
    var authorization: String?
    var expected: Values
    var computed: Values?
    var computed_with_FIPS_180_4_SHA_512_256: Values?

    var testDescription: String { id }

    /// The values a correct implementation must produce: FIPS 180-4 SHA-512/256 where the RFC
    /// text printed truncated SHA-512 (RFC 7616 §3.9.2, erratum 4897), else the RFC values.
    var truth: Values { computed_with_FIPS_180_4_SHA_512_256 ?? computed ?? expected }

    /// The challenge header value: the vector's own, or one built from its fields.
    var challengeValue: String {
        if let challenge { return String(challenge.drop { $0 != ":" }.dropFirst()) }
        var value = "Digest realm=\"\(realm)\", nonce=\"\(nonce)\""
        if let qop { value += ", qop=\"\(qop)\"" }
        if !algorithm.hasPrefix("(") { value += ", algorithm=\(algorithm)" }
        if let opaque { value += ", opaque=\"\(opaque)\"" }
        if let charset { value += ", charset=\(charset)" }
        if userhash == true { value += ", userhash=true" }
        return value
    }

    var body: [UInt8] { Array((entity_body ?? "").utf8) }

    static func load() throws -> [DigestVector] {
        struct File: Decodable { var vectors: [DigestVector] }
        let url = try #require(
            Bundle.module.url(forResource: "digest_vectors", withExtension: "json", subdirectory: "Vectors"))
        return try JSONDecoder().decode(File.self, from: Data(contentsOf: url)).vectors
    }

    static let all: [DigestVector] = (try? load()) ?? []
}

@Suite struct DigestVectorTests {
    @Test func theVectorFileHoldsTheTenVectors() throws {
        let vectors = try DigestVector.load()
        #expect(vectors.count == 10)
        #expect(vectors.filter { $0.id.hasPrefix("draft-smith") }.count == 6)
    }

    @Test(arguments: DigestVector.all)
    func responseMatchesKnownAnswer(_ v: DigestVector) throws {
        let challenge = try DigestChallenge(parsing: v.challengeValue)
        #expect(challenge.realm == v.realm)
        #expect(challenge.nonce == v.nonce)
        #expect(challenge.opaque == v.opaque)
        let qop = v.qop.flatMap { DigestQoP(token: $0) }
        let auth = try DigestAuthorization(
            answering: challenge, credentials: DigestCredentials(username: v.username, password: v.password),
            method: v.method, uri: v.uri, body: v.body, qop: qop, cnonce: v.cnonce ?? "",
            nonceCount: v.nc.flatMap { UInt32($0, radix: 16) } ?? 1)
        #expect(auth.response == v.truth.response)
        #expect(auth.nonceCount.map(DigestMath.nonceCountHex) == v.nc)
        #expect(auth.verify(password: v.password, method: v.method, body: v.body, username: v.username))
        #expect(!auth.verify(password: v.password + "x", method: v.method, body: v.body, username: v.username))

        // Round trip through the serializer and parser.
        let reparsed = try DigestAuthorization(parsing: auth.headerValue)
        #expect(reparsed == auth)
    }

    @Test(arguments: DigestVector.all.filter { $0.truth.HA1 != nil })
    func intermediateValuesMatch(_ v: DigestVector) throws {
        let challenge = try DigestChallenge(parsing: v.challengeValue)
        let ha1 = try DigestMath.ha1(
            challenge.algorithm, username: v.username, realm: v.realm, password: v.password, nonce: v.nonce,
            cnonce: v.cnonce ?? "")
        let qop = v.qop.flatMap { DigestQoP(token: $0) }
        let ha2 = try DigestMath.ha2(challenge.algorithm.hash, method: v.method, uri: v.uri, qop: qop, body: v.body)
        #expect(ha1 == v.truth.HA1)
        #expect(ha2 == v.truth.HA2)
        if let bodyMD5 = v.entity_body_md5 {
            #expect(try DigestHash.md5.hex(v.body) == bodyMD5)
        }
    }

    /// RFC 2617 §3.5: the whole Authorization line, byte for byte.
    @Test func rfc2617AuthorizationLineIsReproducedExactly() throws {
        let v = try #require(DigestVector.all.first { $0.id == "rfc2617-3.5" })
        let challenge = try DigestChallenge(parsing: v.challengeValue)
        #expect(challenge.qopOptions == [.auth, .authInt])
        #expect(!challenge.algorithmIsExplicit)
        let auth = try DigestAuthorization(
            answering: challenge, credentials: DigestCredentials(username: v.username, password: v.password),
            method: v.method, uri: v.uri, qop: .auth, cnonce: try #require(v.cnonce), nonceCount: 1)
        #expect("Authorization: " + auth.headerValue == v.authorization)
        let parsed = try DigestAuthorization(parsing: String(try #require(v.authorization).dropFirst(15)))
        #expect(parsed == auth)
    }

    /// RFC 7616 §3.9.2 (SHA-512-256, userhash, charset=UTF-8). The RFC prints values of
    /// SHA-512 truncated to 256 bits (erratum 4897); we implement FIPS 180-4 SHA-512/256.
    @Test func rfc7616Sha512_256UserhashUsesFIPSValues() throws {
        let v = try #require(DigestVector.all.first { $0.algorithm == "SHA-512-256" })
        let fips = try #require(v.computed_with_FIPS_180_4_SHA_512_256)
        let challenge = try DigestChallenge(parsing: v.challengeValue)
        #expect(challenge.userhash)
        #expect(challenge.charset == "UTF-8")
        #expect(challenge.algorithm == .sha512_256)
        let auth = try DigestAuthorization(
            answering: challenge, credentials: DigestCredentials(username: v.username, password: v.password),
            method: v.method, uri: v.uri, qop: .auth, cnonce: try #require(v.cnonce), nonceCount: 1)
        #expect(auth.username == fips.userhash_username)
        #expect(auth.userhash)
        #expect(auth.headerValue.contains("userhash=true"))
        #expect(auth.response == fips.response)
        // Not the erratum's truncated-SHA-512 values.
        #expect(auth.response != v.expected.response)
        #expect(auth.username != v.expected.userhash_username)
        // The server side: the hashed username is checked against the plain one.
        #expect(auth.verify(password: v.password, method: v.method, username: v.username))
        #expect(!auth.verify(password: v.password, method: v.method, username: "Jason Doe"))
        // RFC 7616 §3.4.4: the response is the same as without userhash.
        var plain = challenge
        plain.userhash = false
        let plainAuth = try DigestAuthorization(
            answering: plain, credentials: DigestCredentials(username: v.username, password: v.password),
            method: v.method, uri: v.uri, qop: .auth, cnonce: try #require(v.cnonce), nonceCount: 1)
        #expect(plainAuth.response == auth.response)
        #expect(plainAuth.username == v.username)
    }

    /// RFC 7616 §3.4 / RFC 5987: `username*=UTF-8''J%C3%A4s%C3%B8n%20Doe` decodes.
    @Test func extendedUsernameDecodes() throws {
        let v = try #require(DigestVector.all.first { $0.username_star != nil })
        let header =
            "Digest username*=\(try #require(v.username_star)), realm=\"\(v.realm)\", uri=\"\(v.uri)\", "
            + "nonce=\"\(v.nonce)\", response=\"00\""
        #expect(try DigestAuthorization(parsing: header).username == v.username)
        #expect(Array(v.username.utf8) == hexBytes(try #require(v.username_utf8_hex)))
    }
}

/// Bytes of a hex string (test helper).
func hexBytes(_ hex: String) -> [UInt8] {
    var bytes: [UInt8] = []
    var chars = hex.makeIterator()
    while let a = chars.next(), let b = chars.next() { bytes.append(UInt8(String([a, b]), radix: 16)!) }
    return bytes
}

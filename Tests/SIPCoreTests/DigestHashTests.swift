import Testing

@testable import SIPCore

@Suite struct DigestHashTests {
    /// FIPS 180-4 / RFC 1321 answers for "abc"; SHA-512/256 from NIST's example values
    /// (different from SHA-512 truncated, which starts ddaf35a1…).
    @Test(arguments: [
        (DigestHash.md5, "900150983cd24fb0d6963f7d28e17f72"),
        (.sha256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (.sha512_256, "53048e2681941ef99b2e29b76b4c7dabe4c2d0c634fc6d46e0e2f13107e7af23"),
    ])
    func knownAnswerForABC(_ hash: DigestHash, _ expected: String) throws {
        #expect(try hash.hex("abc") == expected)
        #expect(try hash.hex(Array("abc".utf8)) == expected)
        #expect(expected.utf8.count == hash.byteCount * 2)
    }

    @Test func emptyInputHashes() throws {
        #expect(try DigestHash.md5.hex([]) == "d41d8cd98f00b204e9800998ecf8427e")
    }

    @Test func streamingEqualsOneShot() throws {
        var hasher = try DigestHasher(.sha256)
        hasher.update(field: "Mufasa")
        hasher.update("Circle")
        #expect(try hasher.finalizeHex() == DigestHash.sha256.hex("Mufasa:Circle"))
    }

    @Test func nonceCountIsEightLowerCaseHexDigits() {
        #expect(DigestMath.nonceCountHex(1) == "00000001")
        #expect(DigestMath.nonceCountHex(0xABCDEF12) == "abcdef12")
        #expect(DigestMath.parseNonceCount("0000000A") == 10)
        #expect(DigestMath.parseNonceCount("+0000001") == nil)
        #expect(DigestMath.parseNonceCount("1") == nil)
    }

    @Test func algorithmTokensAndStrength() {
        for algorithm in DigestAlgorithm.allCases {
            #expect(DigestAlgorithm(token: algorithm.token) == algorithm)
            #expect(DigestAlgorithm(token: algorithm.token.uppercased()) == algorithm)
        }
        #expect(DigestAlgorithm(token: "SHA-512") == nil)
        #expect(DigestAlgorithm.sha512_256Sess.strength > DigestAlgorithm.sha256.strength)
        #expect(DigestAlgorithm.sha256.strength > DigestAlgorithm.md5Sess.strength)
    }
}

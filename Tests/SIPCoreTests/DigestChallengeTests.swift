import Testing

@testable import SIPCore

@Suite struct DigestChallengeTests {
    @Test func parsesEveryKnownParameter() throws {
        let c = try DigestChallenge(
            parsing: #"DIGEST Realm="atlanta.com", NONCE="84a4cc6f3082121f32b42a2187831a9e", "#
                + #"Opaque="x\"y", stale=TRUE, Algorithm=sha-256-SESS, qop="auth-int , auth,unknown", "#
                + #"userhash=true, charset="utf-8", domain="sip:a.com sip:b.com", x-ext=tok, y-ext="q""#)
        #expect(c.realm == "atlanta.com")
        #expect(c.nonce == "84a4cc6f3082121f32b42a2187831a9e")
        #expect(c.opaque == #"x"y"#)
        #expect(c.stale)
        #expect(c.algorithm == .sha256Sess)
        #expect(c.algorithmIsExplicit)
        #expect(c.qopOptions == [.authInt, .auth])
        #expect(c.userhash)
        #expect(c.charset == "utf-8")
        #expect(c.domain == ["sip:a.com", "sip:b.com"])
        #expect(
            c.otherParameters == [
                AuthParam(name: "x-ext", value: "tok", isQuoted: false),
                AuthParam(name: "y-ext", value: "q", isQuoted: true),
            ])
    }

    @Test func defaultsWhenOptionalParametersAreAbsent() throws {
        let c = try DigestChallenge(parsing: #"Digest realm="biloxi.com", nonce="abc""#)
        #expect(c.algorithm == .md5)
        #expect(!c.algorithmIsExplicit)
        #expect(c.qopOptions.isEmpty)
        #expect(!c.stale && !c.userhash)
        #expect(c.opaque == nil && c.charset == nil && c.domain.isEmpty)
        #expect(c.chooseQoP(hasBody: true) == nil)
    }

    @Test func toleratesLWSFoldingBWSAndUnquotedValues() throws {
        let c = try DigestChallenge(
            parsing: "Digest\trealm = \"a\r\n b\" ,\r\n nonce=abc/def==,,qop=auth , algorithm=MD5")
        #expect(c.realm == "a b")
        #expect(c.nonce == "abc/def==")
        #expect(c.qopOptions == [.auth])
    }

    @Test func severalChallengesInOneValueAndAcrossValues() throws {
        let all = try DigestChallenge.parseAll([
            #"Basic realm="x", Digest realm="r", nonce="1", algorithm=MD5, Digest realm="r", nonce="2", algorithm=SHA-512-256"#,
            #"Bearer dGVzdA==, Digest realm="r", nonce="3", algorithm=SHA-256, qop="auth""#,
            #"Digest realm="r", nonce="4", algorithm=SHA-1"#,
        ])
        #expect(all.map(\.nonce) == ["1", "2", "3"])
        #expect(DigestChallenge.strongest(all)?.nonce == "2")
        #expect(DigestChallenge.strongest(Array(all.prefix(1) + all.suffix(1)))?.nonce == "3")
    }

    @Test func strongestKeepsServerOrderAmongEquals() throws {
        let all = try DigestChallenge.parseAll([
            #"Digest realm="r", nonce="1", algorithm=SHA-256-sess"#, #"Digest realm="r", nonce="2", algorithm=SHA-256"#,
        ])
        #expect(DigestChallenge.strongest(all)?.nonce == "1")
    }

    @Test func qopChoice() throws {
        let both = try DigestChallenge(parsing: #"Digest realm="r", nonce="n", qop="auth-int,auth""#)
        #expect(both.chooseQoP(hasBody: true) == .auth)
        #expect(both.chooseQoP(hasBody: false, preferAuthInt: true) == .auth)
        #expect(both.chooseQoP(hasBody: true, preferAuthInt: true) == .authInt)
        let intOnly = try DigestChallenge(parsing: #"Digest realm="r", nonce="n", qop="auth-int""#)
        #expect(intOnly.chooseQoP(hasBody: false) == .authInt)
    }

    @Test(arguments: [
        ("", DigestError.Code.empty),
        (" , ", .empty),
        (#"Basic realm="x""#, .unsupportedScheme),
        (#"Digest realm="r""#, .missingParameter),
        (#"Digest nonce="n""#, .missingParameter),
        (#"Digest realm="r", nonce="""#, .missingParameter),
        (#"Digest realm="r", nonce="n", realm="s""#, .duplicateParameter),
        (#"Digest realm="r", NONCE="n", nonce="m""#, .duplicateParameter),
        (#"Digest realm="r, nonce="n""#, .syntax),
        (#"Digest realm="r", nonce="n"#, .unterminatedQuotedString),
        (#"Digest realm="r", nonce="n\"#, .unterminatedQuotedString),
        ("Digest realm=\"r\u{0}\", nonce=\"n\"", .invalidCharacter),
        ("Digest realm=\"r\r\nx\", nonce=\"n\"", .invalidCharacter),
        (#"Digest realm="r" nonce="n""#, .syntax),
        (#"Digest realm=, nonce="n""#, .syntax),
        (#"Digest ="r""#, .syntax),
        (#"Digest realm"#, .syntax),
        (#"Digest realm="r", nonce="n", stale=maybe"#, .invalidParameterValue),
        (#"Digest realm="r", nonce="n", charset=ISO-8859-1"#, .invalidParameterValue),
        (#"Digest realm="r", nonce="n", algorithm=SHA-1"#, .unsupportedAlgorithm),
        (#"Digest realm="r", nonce="n", qop="auth-conf""#, .unsupportedQoP),
        ("@Digest", .syntax),
    ])
    func rejectsBadInputWithATypedError(_ input: String, _ code: DigestError.Code) {
        #expect(throws: DigestError(code)) { try DigestChallenge(parsing: input) }
    }

    @Test func parseAllSkipsUnusableButReportsSyntaxErrors() {
        #expect(throws: DigestError(.noUsableChallenge)) {
            try DigestChallenge.parseAll([#"Basic realm="x""#, #"Digest realm="r", nonce="n", algorithm=AKAv1-MD5"#])
        }
        let usable = try? DigestChallenge.parseAll([#"Digest realm="r", stale=maybe"#, #"Digest realm="r", nonce="n""#])
        #expect(usable?.map(\.nonce) == ["n"])
        #expect(throws: DigestError(.syntax)) {
            try DigestChallenge.parseAll([#"Digest realm="r", nonce="n""#, #"Digest realm="r" x"#])
        }
        #expect(throws: DigestError(.noUsableChallenge)) { try DigestChallenge.parseAll([]) }
    }

    @Test func boundsAreEnforced() {
        let huge = #"Digest realm=""# + String(repeating: "a", count: 9000) + #"", nonce="n""#
        #expect(throws: DigestError(.tooLarge)) { try DigestChallenge(parsing: huge) }
        let many = "Digest realm=\"r\", nonce=\"n\"" + (0..<40).map { ", p\($0)=v" }.joined()
        #expect(throws: DigestError(.tooLarge)) { try DigestChallenge(parsing: many) }
        let challenges = Array(repeating: "Basic abc", count: 20).joined(separator: ", ")
        #expect(throws: DigestError(.tooLarge)) { try DigestChallenge.parseAll([challenges]) }
    }

    /// Every prefix and every single-byte mutation of a real challenge parses or throws; none traps.
    @Test func neverTrapsOnMangledInput() {
        let base = Array(
            #"Digest realm="biloxi.com", qop="auth,auth-int", nonce="dcd9\"8b", opaque="5c", algorithm=MD5"#.utf8)
        let specials: [UInt8] = [0, 0x0D, 0x0A, 0x22, 0x5C, 0x2C, 0x3D, 0x20, 0xFF, 0x41]
        for cut in 0...base.count {
            _ = try? DigestChallenge(parsing: String(decoding: base.prefix(cut), as: UTF8.self))
        }
        for position in base.indices {
            for byte in specials {
                var mutated = base
                mutated[position] = byte
                _ = try? DigestChallenge.parseAll([String(decoding: mutated, as: UTF8.self)])
                _ = try? DigestAuthorization(parsing: String(decoding: mutated, as: UTF8.self))
            }
        }
    }

    @Test func errorsCompareOnCodeAndPrintOneLine() {
        let a = DigestError(.syntax, "x", offset: 3)
        #expect(a == DigestError(.syntax))
        #expect(a != DigestError(.empty))
        #expect(a.description == "digest: syntax (x) at byte 3")
    }
}

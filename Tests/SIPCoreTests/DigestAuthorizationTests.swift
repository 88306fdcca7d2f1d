import Testing

@testable import SIPCore

@Suite struct DigestAuthorizationTests {
    static let challenge = DigestChallenge(
        realm: "biloxi.com", nonce: "dcd98b7102dd2f0e8b11d0f600bfb0c093", opaque: "5ccc069c403ebaf9f0171e9517f40e41",
        qopOptions: [.auth, .authInt])
    static let bob = DigestCredentials(username: "bob", password: "zanzibar")

    func answer(
        _ challenge: DigestChallenge = challenge, credentials: DigestCredentials = bob, qop: DigestQoP? = .auth,
        uri: String = "sip:bob@biloxi.com", method: String = "INVITE", nc: UInt32 = 1
    ) throws(DigestError) -> DigestAuthorization {
        try DigestAuthorization(
            answering: challenge, credentials: credentials, method: method, uri: uri, qop: qop, cnonce: "0a4f113b",
            nonceCount: nc)
    }

    @Test func serializesInTheOrderSIPServersExpect() throws {
        let auth = try answer()
        #expect(
            auth.headerValue
                == #"Digest username="bob", realm="biloxi.com", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", uri="sip:bob@biloxi.com", qop=auth, nc=00000001, cnonce="0a4f113b", response="89eb0059246c02b2f6ee02c7961d5ea3", opaque="5ccc069c403ebaf9f0171e9517f40e41""#
        )
    }

    @Test func explicitAlgorithmIsEchoedUnquoted() throws {
        var challenge = Self.challenge
        challenge.algorithm = .sha256
        challenge.algorithmIsExplicit = true
        let value = try answer(challenge, nc: 0x1A).headerValue
        #expect(value.contains(#"uri="sip:bob@biloxi.com", algorithm=SHA-256, qop=auth, nc=0000001a, "#))
    }

    @Test func noQoPOmitsNcAndCnonce() throws {
        var challenge = Self.challenge
        challenge.qopOptions = []
        let auth = try answer(challenge, qop: nil)
        #expect(auth.response == "bf57e4e0d0bffc0fbaedce64d59add5e")  // draft-smith §3.1
        #expect(
            !auth.headerValue.contains("nc=") && !auth.headerValue.contains("cnonce=")
                && !auth.headerValue.contains("qop="))
    }

    @Test func sessionAlgorithmWithoutQoPStillSendsCnonce() throws {
        var challenge = Self.challenge
        challenge.qopOptions = []
        challenge.algorithm = .md5Sess
        let auth = try answer(challenge, qop: nil)
        #expect(auth.cnonce == "0a4f113b")
        #expect(auth.nonceCount == nil)
        #expect(auth.verify(password: "zanzibar", method: "INVITE"))
    }

    @Test func escapesQuotesAndBackslashes() throws {
        let creds = DigestCredentials(username: #"a"b\c"#, password: "p")
        let auth = try answer(credentials: creds)
        #expect(auth.headerValue.hasPrefix(#"Digest username="a\"b\\c", "#))
        #expect(try DigestAuthorization(parsing: auth.headerValue).username == #"a"b\c"#)
        #expect(auth.verify(password: "p", method: "INVITE"))
    }

    @Test func utf8UsernameGoesInAQuotedString() throws {
        let creds = DigestCredentials(username: "Jäsøn", password: "p")
        let auth = try answer(credentials: creds)
        #expect(auth.headerValue.hasPrefix(#"Digest username="Jäsøn", "#))
        #expect(try DigestAuthorization(parsing: auth.headerValue) == auth)
    }

    @Test(arguments: [
        ("\r\nVia: evil", "sip:bob@biloxi.com", "INVITE"),
        ("bob", "sip:bob@biloxi.com\r\nX: y", "INVITE"),
        ("bob", "sip:bob@biloxi.com", "INV ITE"),
        ("bob", "sip:bob@biloxi.com", ""),
    ])
    func refusesHeaderInjection(_ username: String, _ uri: String, _ method: String) {
        #expect(throws: DigestError(.invalidCharacter)) {
            try answer(credentials: DigestCredentials(username: username, password: "p"), uri: uri, method: method)
        }
    }

    @Test func qopMustBeOffered() {
        #expect(throws: DigestError(.unsupportedQoP)) { try answer(qop: nil) }
        var noQoP = Self.challenge
        noQoP.qopOptions = []
        #expect(throws: DigestError(.unsupportedQoP)) { try answer(noQoP, qop: .auth) }
        #expect(throws: DigestError(.invalidParameterValue)) { try answer(nc: 0) }
    }

    @Test func parsesServerSideAndVerifies() throws {
        let value =
            #"digest USERNAME="bob",realm="biloxi.com",nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093",uri="sip:bob@biloxi.com",qop=auth,nc=00000001,cnonce="0a4f113b",response="89EB0059246C02B2F6EE02C7961D5EA3",opaque="5ccc069c403ebaf9f0171e9517f40e41",foo=bar"#
        let auth = try DigestAuthorization(parsing: value)
        #expect(auth.username == "bob" && auth.qop == .auth && auth.nonceCount == 1)
        #expect(auth.otherParameters == [AuthParam(name: "foo", value: "bar", isQuoted: false)])
        #expect(auth.verify(password: "zanzibar", method: "INVITE"))
        #expect(!auth.verify(password: "zanzibar", method: "REGISTER"))
        #expect(auth.headerValue.hasSuffix(", foo=bar"))
    }

    @Test(arguments: [
        (#"Basic Ym9iOnphbnppYmFy"#, DigestError.Code.unsupportedScheme),
        (#"Digest realm="r", nonce="n", uri="u", response="x""#, .missingParameter),
        (#"Digest username="b", nonce="n", uri="u", response="x""#, .missingParameter),
        (#"Digest username="b", realm="r", nonce="n", uri="u""#, .missingParameter),
        (#"Digest username="b", realm="r", nonce="n", uri="u", response="x", qop=auth, cnonce="c""#, .missingParameter),
        (
            #"Digest username="b", realm="r", nonce="n", uri="u", response="x", qop=auth, nc=00000001"#,
            .missingParameter
        ),
        (
            #"Digest username="b", realm="r", nonce="n", uri="u", response="x", qop=auth, nc=1, cnonce="c""#,
            .invalidParameterValue
        ),
        (
            #"Digest username="b", realm="r", nonce="n", uri="u", response="x", qop=auth, nc=0000000g, cnonce="c""#,
            .invalidParameterValue
        ),
        (
            #"Digest username="b", username*=UTF-8''b, realm="r", nonce="n", uri="u", response="x""#,
            .invalidParameterValue
        ),
        (#"Digest username*=latin1''b, realm="r", nonce="n", uri="u", response="x""#, .invalidParameterValue),
        (#"Digest username*=UTF-8''%C3, realm="r", nonce="n", uri="u", response="x""#, .invalidParameterValue),
        (#"Digest username*=UTF-8''b%4, realm="r", nonce="n", uri="u", response="x""#, .invalidParameterValue),
        (#"Digest username*=UTF-8''%zz, realm="r", nonce="n", uri="u", response="x""#, .invalidParameterValue),
        (#"Digest username="b", realm="r", nonce="n", uri="u", response="x", algorithm=SHA1"#, .unsupportedAlgorithm),
        (#"Digest username="b", realm="r", nonce="n", uri="u", response="x", qop=auth-conf"#, .unsupportedQoP),
    ])
    func rejectsBadCredentials(_ input: String, _ code: DigestError.Code) {
        #expect(throws: DigestError(code)) { try DigestAuthorization(parsing: input) }
    }

    // MARK: Secrets never printed (RFC 3261 §26.3.1 hygiene for traces)

    @Test func responseIsRedactedEverywhere() throws {
        let auth = try answer()
        let secret = auth.response
        #expect(auth.redacted.contains(#"response="<redacted>""#))
        #expect(auth.redacted == auth.headerValue.replacingOccurrences(secret, "<redacted>"))
        var dumped = ""
        dump(auth, to: &dumped)
        let field = DigestHeaderField(name: "Authorization", authorization: auth)
        var dumpedField = ""
        dump(field, to: &dumpedField)
        for text in [
            auth.description, auth.debugDescription, "\(auth)", String(reflecting: auth), dumped,
            field.description, String(reflecting: field), dumpedField, "\([field])",
        ] {
            #expect(!text.contains(secret), "\(text)")
        }
        #expect(field.value == auth.headerValue)
        #expect(DigestAuthorization.redact(headerValue: auth.headerValue) == auth.redacted)
        #expect(DigestAuthorization.redact(headerValue: "Digest garbage \"") == "<redacted>")
    }

    @Test func passwordAndHA1AreNeverPrinted() throws {
        let creds = DigestCredentials(username: "bob", password: "zanzibar", realm: "biloxi.com")
        let ha1 = try DigestMath.ha1(
            .md5, username: "bob", realm: "biloxi.com", password: "zanzibar", nonce: "", cnonce: "")
        var state = DigestClientState(credentials: creds)
        _ = state.receive(challenges: [#"Digest realm="biloxi.com", nonce="n", qop="auth""#], kind: .server)
        _ = try state.authorizationHeaders(
            method: "REGISTER", uri: "sip:biloxi.com")
        var dumpedCreds = ""
        dump(creds, to: &dumpedCreds)
        var dumpedState = ""
        dump(state, to: &dumpedState)
        for text in [
            creds.description, String(reflecting: creds), "\(creds)", dumpedCreds, state.description,
            String(reflecting: state), dumpedState, "\(Mirror(reflecting: state).children.map(\.value))",
        ] {
            #expect(!text.contains("zanzibar"), "\(text)")
            #expect(!text.contains(ha1), "\(text)")
        }
        #expect(creds.description.contains("bob"))
    }
}

extension String {
    fileprivate func replacingOccurrences(_ target: String, _ replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}

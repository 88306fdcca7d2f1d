import SIPCore
import Testing

@Suite struct DigestClientStateTests {
    let ids = SeededIdentifierSource(seed: 42)
    let bob = DigestCredentials(username: "bob", password: "zanzibar")
    static let realm = "biloxi.com"

    func challenge(_ nonce: String, stale: Bool = false, algorithm: String = "MD5", realm: String = realm) -> String {
        #"Digest realm="\#(realm)", nonce="\#(nonce)", qop="auth", algorithm=\#(algorithm)"#
            + (stale ? ", stale=true" : "")
    }

    func register(_ state: inout DigestClientState) throws -> DigestAuthorization {
        let fields = try state.authorizationHeaders(method: "REGISTER", uri: "sip:biloxi.com")
        try #require(fields.count == 1)
        return try DigestAuthorization(parsing: fields[0].value)
    }

    @Test func noHeadersBeforeTheFirstChallenge() throws {
        var state = DigestClientState(credentials: bob)
        #expect(try state.authorizationHeaders(method: "REGISTER", uri: "sip:biloxi.com").isEmpty)
    }

    @Test func answersAndCountsNoncesWithOneCnoncePerNonce() throws {
        var state = DigestClientState(credentials: bob)
        #expect(state.receive(challenges: [challenge("n1")], kind: .server) == .retry)
        let first = try register(&state)
        let second = try register(&state)
        #expect(first.nonceCount == 1 && second.nonceCount == 2)
        #expect(first.cnonce == second.cnonce)
        #expect(first.cnonce?.utf8.count == 32)
        #expect(first.verify(password: "zanzibar", method: "REGISTER"))
        #expect(second.verify(password: "zanzibar", method: "REGISTER"))
        #expect(second.headerValue.contains("nc=00000002"))
        // A new nonce resets nc and draws a new cnonce.
        #expect(state.receive(challenges: [challenge("n2", stale: true)], kind: .server) == .retry)
        let third = try register(&state)
        #expect(third.nonceCount == 1 && third.nonce == "n2" && third.cnonce != first.cnonce)
    }

    @Test func wrongPasswordIsNotRetried() throws {
        var state = DigestClientState(credentials: bob)
        #expect(state.receive(challenges: [challenge("n1")], kind: .server) == .retry)
        _ = try register(&state)
        // Same nonce, not stale (RFC 3261 §22.2).
        var same = state
        #expect(
            same.receive(challenges: [challenge("n1")], kind: .server) == .giveUp(DigestError(.credentialsRejected)))
        // Fresh nonce right after our only answer (Asterisk style).
        #expect(
            state.receive(challenges: [challenge("n2")], kind: .server) == .giveUp(DigestError(.credentialsRejected)))
        // The rejected realm is forgotten: a later attempt starts clean.
        #expect(state.realms.isEmpty)
    }

    @Test func staleNonceIsRetriedWithoutThePasswordButNotForever() throws {
        var state = DigestClientState(credentials: bob)
        #expect(state.receive(challenges: [challenge("n0")], kind: .server) == .retry)
        _ = try register(&state)
        for i in 1...DigestClientState.maxStaleRetries {
            #expect(state.receive(challenges: [challenge("s\(i)", stale: true)], kind: .server) == .retry)
            #expect(try register(&state).nonce == "s\(i)")
        }
        #expect(
            state.receive(challenges: [challenge("s-last", stale: true)], kind: .server)
                == .giveUp(DigestError(.credentialsRejected)))
        // stale=true with the very nonce we used is nonsense: give up.
        var other = DigestClientState(credentials: bob)
        _ = other.receive(challenges: [challenge("n1")], kind: .server)
        _ = try register(&other)
        #expect(other.receive(challenges: [challenge("n1", stale: true)], kind: .server) != .retry)
    }

    @Test func reusedNonceThatExpiresWithoutStaleGetsOneRetry() throws {
        var state = DigestClientState(credentials: bob)
        _ = state.receive(challenges: [challenge("n1")], kind: .server)
        _ = try register(&state)  // accepted
        _ = try register(&state)  // refresh, nc=2, refused with a new nonce and no stale flag
        #expect(state.receive(challenges: [challenge("n2")], kind: .server) == .retry)
        _ = try register(&state)
        #expect(
            state.receive(challenges: [challenge("n3")], kind: .server) == .giveUp(DigestError(.credentialsRejected)))
    }

    @Test func strongestAlgorithmPerRealmAndOneHeaderPerRealm() throws {
        var state = DigestClientState(credentials: bob)
        let decision = state.receive(
            challenges: [
                challenge("md5", algorithm: "MD5"), challenge("sha", algorithm: "SHA-512-256"),
                challenge("x", algorithm: "SHA-256", realm: "proxy.net"),
            ],
            kind: .proxy)
        #expect(decision == .retry)
        #expect(state.realms == ["biloxi.com", "proxy.net"])
        _ = state.receive(challenges: [challenge("w")], kind: .server)
        let fields = try state.authorizationHeaders(method: "INVITE", uri: "sip:alice@atlanta.com")
        #expect(fields.map(\.name) == ["Proxy-Authorization", "Proxy-Authorization", "Authorization"])
        let parsed = try fields.map { field throws(DigestError) in try DigestAuthorization(parsing: field.value) }
        #expect(parsed.map(\.algorithm) == [.sha512_256, .sha256, .md5])
        #expect(parsed.allSatisfy { $0.verify(password: "zanzibar", method: "INVITE") })
    }

    @Test func realmRestrictedCredentials() {
        var state = DigestClientState(credentials: DigestCredentials(username: "bob", password: "z", realm: "other"))
        #expect(
            state.receive(challenges: [challenge("n")], kind: .server) == .giveUp(DigestError(.noCredentialsForRealm)))
    }

    @Test func unparseableOrForeignChallengesGiveUp() {
        var state = DigestClientState(credentials: bob)
        #expect(
            state.receive(challenges: [#"Digest realm="x"#], kind: .server)
                == .giveUp(DigestError(.unterminatedQuotedString)))
        #expect(
            state.receive(challenges: [#"Basic realm="x""#], kind: .server) == .giveUp(DigestError(.noUsableChallenge)))
    }

    @Test func authIntWhenPreferredAndABodyIsPresent() throws {
        var state = DigestClientState(credentials: bob, preferAuthInt: true)
        _ = state.receive(challenges: [#"Digest realm="r", nonce="n", qop="auth,auth-int""#], kind: .server)
        let body = Array("v=0\r\n".utf8)
        let field = try #require(
            try state.authorizationHeaders(method: "INVITE", uri: "sip:b@r", body: body).first)
        let auth = try DigestAuthorization(parsing: field.value)
        #expect(auth.qop == .authInt)
        #expect(auth.verify(password: "zanzibar", method: "INVITE", body: body))
        #expect(!auth.verify(password: "zanzibar", method: "INVITE", body: []))
        let bodiless = try #require(try state.authorizationHeaders(method: "BYE", uri: "sip:b@r").first)
        #expect(try DigestAuthorization(parsing: bodiless.value).qop == .auth)
    }

    @Test func newCredentialsForgetChallenges() {
        var state = DigestClientState(credentials: bob)
        _ = state.receive(challenges: [challenge("n")], kind: .server)
        state.update(credentials: DigestCredentials(username: "bob", password: "new"))
        #expect(state.realms.isEmpty)
    }

    @Test func remembersABoundedNumberOfRealms() {
        var state = DigestClientState(credentials: bob)
        for i in 0..<(DigestClientState.maxRealms + 3) {
            _ = state.receive(challenges: [challenge("n", realm: "r\(i)")], kind: .server)
        }
        #expect(state.realms.count == DigestClientState.maxRealms)
        #expect(state.realms.last == "r\(DigestClientState.maxRealms + 2)")
    }
}

import SIPCore
import Testing
@testable import SIPDialog

@Suite struct RegistrationClientTests {
    let aor = try! SIPURI(parsing: "sip:1001@astra.test")
    let registrar = try! SIPURI(parsing: "sip:astra.test")
    let wss = LocalBinding(transport: .wss, host: "df7jal23ls0d.invalid", port: nil)

    func client(password: String? = "secret1001", keep: Bool = false,
                configure: (inout RegistrationSettings) -> Void = { _ in }) -> RegistrationClient {
        var settings = RegistrationSettings()
        settings.retryOnFailure = keep
        settings.instanceID = "urn:uuid:00000000-0000-4000-8000-000000000001"
        settings.regID = 1
        configure(&settings)
        return RegistrationClient(aor: aor, registrar: registrar, displayName: "Alice",
                                  credentials: password.map { DigestCredentials(username: "1001", password: $0) },
                                  settings: settings, ids: SeededIdentifierSource(seed: 7))
    }

    func sent(_ actions: [RegistrationClient.Action]) -> [SIPRequest] {
        actions.compactMap { if case .send(let r) = $0 { r } else { nil } }
    }

    func events(_ actions: [RegistrationClient.Action]) -> [RegistrationEvent] {
        actions.compactMap { if case .event(let e) = $0 { e } else { nil } }
    }

    func timers(_ actions: [RegistrationClient.Action]) -> [(RegistrationClient.Timer, Duration)] {
        actions.compactMap { if case .startTimer(let t, let d) = $0 { (t, d) } else { nil } }
    }

    func response(_ request: SIPRequest, _ status: Int, _ extra: [(SIPHeaderName, String)] = []) -> SIPResponse {
        SIPResponse(to: request, statusCode: status, toTag: status >= 200 && status != 100 ? "as1234" : nil,
                    headers: SIPHeaders(extra))
    }

    func challenge(nonce: String, stale: Bool = false) -> [(SIPHeaderName, String)] {
        [(.wwwAuthenticate, "Digest realm=\"astra.test\", nonce=\"\(nonce)\", qop=\"auth\", algorithm=MD5"
            + (stale ? ", stale=true" : ""))]
    }

    @Test func firstRegisterIsWellFormedForWebSocket() throws {
        var c = client()
        let actions = c.start(binding: wss)
        let request = try #require(sent(actions).first)
        let text = String(decoding: request.serialized(), as: UTF8.self)
        #expect(text.hasPrefix("REGISTER sip:astra.test SIP/2.0\r\n"))
        let via = try #require(try request.headers.topVia())
        #expect(via.transport == .wss)
        #expect(via.host.address == "df7jal23ls0d.invalid")
        #expect(via.hasMagicCookie)
        let contact = try #require(try request.headers.contacts().first)
        #expect(contact.expires == 300)
        #expect(contact.instance == "<urn:uuid:00000000-0000-4000-8000-000000000001>")
        #expect(contact.regID == 1)
        #expect(contact.address?.uri.parameters["transport"] == "ws")  // RFC 7118 §5.2: `ws` for WSS too
        #expect(try request.headers.cseq()?.method == .register)
        #expect(request.headers[.authorization] == nil)
        #expect(events(actions) == [.registering(expires: 300, attempt: 1)])
        #expect(c.state == .registering)
    }

    /// RFC 3261 §10.2.4: without `+sip.instance`, our binding in the 2xx is the Contact whose URI
    /// is §19.1.4-equivalent to the one we sent: host case and `%HH` user escapes do not matter;
    /// an added explicit default port or `transport` does.
    @Test func ourContactIsFoundByURIEquivalence() throws {
        let udp = LocalBinding(transport: .udp, host: "Host.Example", port: nil)
        func granted(_ contacts: [String]) throws -> RegistrationResult? {
            var c = client(password: nil) { $0.instanceID = nil; $0.regID = nil }
            let request = try #require(sent(c.start(binding: udp)).first)
            let actions = c.receive(response(request, 200, contacts.map { (.contact, $0) }))
            if case .registered(let result) = events(actions).last { return result }
            return nil
        }
        let equivalent = try granted(["<sip:other@host.example>;expires=50", "<sip:%31001@HOST.example>;expires=40"])
        #expect(equivalent?.contactMatched == true)
        #expect(equivalent?.grantedExpires == 40)
        for foreign in ["<sip:1001@host.example:5060>;expires=40", "<sip:1001@host.example;transport=tcp>;expires=40"] {
            let result = try granted(["<sip:other@host.example>;expires=50", foreign])
            #expect(result?.contactMatched == false, "\(foreign)")
            #expect(result?.grantedExpires == 300, "\(foreign): falls back to what we asked for")
        }
    }

    @Test func sameSeedGivesByteIdenticalRequests() {
        var a = client()
        var b = client()
        #expect(sent(a.start(binding: wss)).first?.serialized() == sent(b.start(binding: wss)).first?.serialized())
    }

    @Test func expiryRequestIsSentAsAskedUnlessAPolicyClampsIt() throws {
        for asked: UInt32 in [3600, 5] {
            var plain = client { $0.requestedExpires = asked }
            #expect(try #require(sent(plain.start(binding: wss)).first).headers.expires() == asked)
        }
        var c = client { $0.requestedExpires = 3600; $0.expiresBounds = 30...300 }
        let request = try #require(sent(c.start(binding: wss)).first)
        #expect(try request.headers.expires() == 300)
        var d = client { $0.requestedExpires = 5; $0.expiresBounds = 30...300 }
        let small = try #require(sent(d.start(binding: wss)).first)
        #expect(try small.headers.expires() == 30)
    }

    @Test func challengeIsAnsweredOnceThenGrantedExpiryComesFromOurContact() throws {
        var c = client()
        let first = try #require(sent(c.start(binding: wss)).first)
        let afterChallenge = c.receive(response(first, 401, challenge(nonce: "n1")))
        #expect(events(afterChallenge) == [.challenged(status: 401, algorithm: "MD5"), .registering(expires: 300, attempt: 2)])
        let second = try #require(sent(afterChallenge).first)
        #expect(second.headers.callID == first.headers.callID)
        #expect(try second.headers.cseq()!.sequence == (try first.headers.cseq()!.sequence) + 1)
        #expect(try second.headers.topVia()?.branch != (try first.headers.topVia()?.branch))
        let authorization = try #require(second.headers[.authorization])
        #expect(authorization.contains("username=\"1001\""))
        #expect(authorization.contains("nonce=\"n1\""))
        #expect(!authorization.contains("secret1001"))

        let ourContact = try #require(second.headers[.contact])
        let granted = c.receive(response(second, 200, [
            (.contact, "<sip:1001@other.invalid;transport=ws>;expires=45"),
            (.contact, ourContact.replacing("expires=300", with: "expires=120")),
        ]))
        guard case .registered(let result) = events(granted).last else {
            Issue.record("expected registered, got \(events(granted))")
            return
        }
        #expect(result.grantedExpires == 120)
        #expect(result.contactMatched)
        #expect(result.bindings.count == 2)
        #expect(result.authAlgorithm == "MD5")
        #expect(!result.isRefresh)
        #expect(c.state == .registered(expires: 120))
        // Refresh no later than granted − margin (110 s) and not later than 90 % (108 s).
        #expect(timers(granted).map(\.1) == [.seconds(108)])
    }

    @Test func refreshCarriesCredentialsAndIsReportedAsRefresh() throws {
        var c = client()
        let first = try #require(sent(c.start(binding: wss)).first)
        let second = try #require(sent(c.receive(response(first, 401, challenge(nonce: "n1")))).first)
        _ = c.receive(response(second, 200, [(.contact, second.headers[.contact]!)]))
        let refresh = try #require(sent(c.timerFired(.refresh)).first)
        #expect(refresh.headers[.authorization]?.contains("nc=00000002") == true)
        let done = c.receive(response(refresh, 200, [(.contact, refresh.headers[.contact]!)]))
        guard case .registered(let result) = events(done).last else {
            Issue.record("expected registered")
            return
        }
        #expect(result.isRefresh)
        #expect(result.grantedExpires == 300)
        #expect(timers(done).map(\.1) == [.seconds(270)])
    }

    @Test func wrongPasswordFailsAfterOneAnswer() throws {
        var c = client(password: "wrong")
        let first = try #require(sent(c.start(binding: wss)).first)
        let second = try #require(sent(c.receive(response(first, 401, challenge(nonce: "n1")))).first)
        let end = c.receive(response(second, 401, challenge(nonce: "n2")))
        #expect(sent(end).isEmpty)
        #expect(events(end) == [.failed(.authenticationFailed(status: 401, reason: "Unauthorized"))])
        #expect(c.state == .failed(.authenticationFailed(status: 401, reason: "Unauthorized")))
    }

    @Test func staleNonceIsRetriedWithoutFailing() throws {
        var c = client()
        let first = try #require(sent(c.start(binding: wss)).first)
        let second = try #require(sent(c.receive(response(first, 401, challenge(nonce: "n1")))).first)
        let third = try #require(sent(c.receive(response(second, 401, challenge(nonce: "n2", stale: true)))).first)
        #expect(third.headers[.authorization]?.contains("nonce=\"n2\"") == true)
    }

    @Test func proxyChallengeIsAnsweredWithProxyAuthorization() throws {
        var c = client()
        let first = try #require(sent(c.start(binding: wss)).first)
        let second = try #require(sent(c.receive(response(first, 407, [
            (.proxyAuthenticate, "Digest realm=\"astra.test\", nonce=\"p1\", algorithm=SHA-256, qop=\"auth\""),
            (.proxyAuthenticate, "Digest realm=\"astra.test\", nonce=\"p1\", algorithm=MD5, qop=\"auth\""),
        ]))).first)
        let value = try #require(second.headers[.proxyAuthorization])
        #expect(value.contains("algorithm=SHA-256"))
    }

    @Test func noPasswordCannotAnswerChallenge() throws {
        var c = client(password: nil)
        let first = try #require(sent(c.start(binding: wss)).first)
        let end = c.receive(response(first, 401, challenge(nonce: "n1")))
        guard case .failed(.cannotAuthenticate(401, _, _)) = events(end).first else {
            Issue.record("expected cannotAuthenticate, got \(events(end))")
            return
        }
    }

    @Test func intervalTooBriefRetriesWithMinExpiresOnce() throws {
        var c = client { $0.requestedExpires = 30 }
        let first = try #require(sent(c.start(binding: wss)).first)
        let retry = c.receive(response(first, 423, [(.minExpires, "600")]))
        #expect(events(retry).first == .intervalTooBrief(minExpires: 600))
        let second = try #require(sent(retry).first)
        #expect(try second.headers.expires() == 600)
        #expect(try second.headers.contacts().first?.expires == 600)
        let again = c.receive(response(second, 423, [(.minExpires, "600")]))
        #expect(events(again) == [.failed(.rejected(status: 423, reason: "Interval Too Brief"))])
    }

    @Test func rejectionEndsOneShotRegistration() throws {
        var c = client()
        let first = try #require(sent(c.start(binding: wss)).first)
        let end = c.receive(response(first, 403))
        #expect(events(end) == [.failed(.rejected(status: 403, reason: "Forbidden"))])
        #expect(timers(end).isEmpty)
    }

    @Test func keepModeRetriesWithJitteredDoublingBackOff() throws {
        var c = client(keep: true) { $0.retryBase = .seconds(2); $0.retryMaximum = .seconds(10) }
        _ = c.start(binding: wss)
        var delays: [Duration] = []
        for _ in 0..<5 {
            let failed = c.transactionFailed(.timeout)
            #expect(events(failed).first == .failed(.timeout))
            let (timer, delay) = try #require(timers(failed).first)
            #expect(timer == .retry)
            delays.append(delay)
            #expect(c.state == .waitingToRetry)
            #expect(!sent(c.timerFired(.retry)).isEmpty)
        }
        let caps: [Duration] = [.seconds(2), .seconds(4), .seconds(8), .seconds(10), .seconds(10)]
        for (delay, cap) in zip(delays, caps) {
            #expect(delay >= cap / 2 && delay <= cap, "\(delay) not in [\(cap / 2), \(cap)]")
        }
    }

    @Test func flowLossWaitsThenReRegistersOnTheNewFlow() throws {
        var c = client(keep: true)
        let first = try #require(sent(c.start(binding: wss)).first)
        _ = c.receive(response(first, 200, [(.contact, first.headers[.contact]!)]))
        let lost = c.flowLost()
        #expect(events(lost) == [.flowLost])
        #expect(c.state == .waitingForFlow)
        #expect(sent(c.timerFired(.refresh)).isEmpty)
        let newFlow = LocalBinding(transport: .wss, host: "k2j3h4g5.invalid", port: nil)
        let recovered = try #require(sent(c.flowRecovered(binding: newFlow)).first)
        #expect(try recovered.headers.topVia()?.host.address == "k2j3h4g5.invalid")
        #expect(recovered.headers.callID == first.headers.callID)
        let done = c.receive(response(recovered, 200, [(.contact, recovered.headers[.contact]!)]))
        guard case .registered(let result) = events(done).last else {
            Issue.record("expected registered")
            return
        }
        #expect(result.isRefresh)
    }

    @Test func stopUnregistersOnlyOurContact() throws {
        var c = client()
        let first = try #require(sent(c.start(binding: wss)).first)
        _ = c.receive(response(first, 200, [(.contact, first.headers[.contact]!)]))
        let stop = c.stop()
        let unregister = try #require(sent(stop).first)
        #expect(try unregister.headers.expires() == 0)
        let contact = try #require(try unregister.headers.contacts().first)
        #expect(contact != .wildcard)
        #expect(contact.expires == 0)
        #expect(events(c.receive(response(unregister, 200))) == [.unregistered])
        #expect(c.state == .stopped)
    }

    @Test func pushParametersGoInTheContactURI() throws {
        var c = client { $0.push = PushParameters(provider: "apns", prid: "TOKEN123", param: "TEAM.org.astra.voip") }
        let request = try #require(sent(c.start(binding: wss)).first)
        let contact = try #require(try request.headers.contacts().first)
        #expect(contact.pushProvider == "apns")
        #expect(contact.pushPRID == "TOKEN123")
        #expect(contact.pushParam == "TEAM.org.astra.voip")
        #expect(!String(describing: c.settings.push!).contains("TOKEN123"))
    }

    @Test func udpBindingHasNoTransportParameterAndKeepsPort() throws {
        var c = client()
        let udp = LocalBinding(transport: .udp, host: "127.0.0.1", port: 40000)
        let request = try #require(sent(c.start(binding: udp)).first)
        let uri = try #require(try request.headers.contacts().first?.address?.uri)
        #expect(uri.parameters["transport"] == nil)
        #expect(uri.port == 40000)
        #expect(try request.headers.topVia()?.rport == .requested)
    }
}

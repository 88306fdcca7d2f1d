import SIPCore
import Testing
@testable import SIPDialog

/// The load engine in virtual time: a fake registrar answers what the engine sends.
@Suite struct RegistrationLoadTests {
    let udp = LocalBinding(transport: .udp, host: "192.0.2.10", port: 5070)

    func clients(_ count: Int, seed: UInt64 = 11) -> [RegistrationClient] {
        let ids = SeededIdentifierSource(seed: seed)
        return (0..<count).map { index in
            let user = String(1001 + index % 3)
            var settings = RegistrationSettings()
            settings.instanceID = "urn:uuid:00000000-0000-4000-8000-000000000001"
            return RegistrationClient(aor: try! SIPURI(parsing: "sip:\(user)@astra.test"),
                                      registrar: try! SIPURI(parsing: "sip:astra.test"),
                                      credentials: DigestCredentials(username: user, password: "astra\(user)"),
                                      settings: settings, ids: ids)
        }
    }

    func parse(_ bytes: [UInt8]) -> SIPRequest {
        guard case .request(let request) = try! SIPMessage(parsing: bytes) else { fatalError("not a request") }
        return request
    }

    /// 401 without credentials, else 200 echoing the Contact (or `status` when given).
    func answer(_ bytes: [UInt8], status: Int? = nil) -> SIPResponse {
        let request = parse(bytes)
        if request.headers[.authorization] == nil && status == nil {
            return SIPResponse(to: request, statusCode: 401, toTag: "r1", headers: SIPHeaders([
                (.wwwAuthenticate, "Digest realm=\"astra.test\", nonce=\"n-\(request.headers.callID!)\", qop=\"auth\""),
            ]))
        }
        return SIPResponse(to: request, statusCode: status ?? 200, toTag: "r1",
                           headers: SIPHeaders([(.contact, request.headers[.contact]!)]))
    }

    @Test func registersEveryLineWithDigestAtMostConcurrencyInFlight() {
        var load = RegistrationLoad(clients: clients(7), binding: udp, reliable: false, concurrency: 3)
        load.begin(.register, now: .zero)
        var inFlight = load.takeOutgoing()
        #expect(inFlight.count == 3)
        var outcomes: [RegistrationLoad.Outcome] = []
        var sent = 3
        var now = Duration.zero
        while !inFlight.isEmpty {
            now += .milliseconds(1)
            let request = inFlight.removeFirst()
            load.receive(answer(request), now: now)
            let next = load.takeOutgoing()
            sent += next.count
            inFlight += next
            outcomes += load.takeOutcomes()
            #expect(inFlight.count <= 3)
        }
        #expect(load.isFinished)
        #expect(sent == 14)  // every line: REGISTER → 401 → REGISTER with Authorization → 200
        #expect(outcomes.map(\.index).sorted() == Array(0..<7))
        for outcome in outcomes {
            guard case .registered(let result) = outcome.result else {
                Issue.record("line \(outcome.index): \(outcome.result)")
                continue
            }
            #expect(result.contactMatched)
            #expect(result.authAlgorithm == "MD5")
            #expect(outcome.latency > .zero)
        }

        // Phase 2: one REGISTER with expiry 0 per registered line, credentials from the challenge.
        load.begin(.unregister, now: now)
        var removals = load.takeOutgoing()
        var done = 0
        while !removals.isEmpty {
            let request = parse(removals[0])
            #expect(try! request.headers.expires() == 0)
            #expect(request.headers[.authorization]?.contains("nc=00000002") == true)
            load.receive(answer(removals.removeFirst()), now: now)
            removals += load.takeOutgoing()
            done += load.takeOutcomes().filter { if case .unregistered = $0.result { true } else { false } }.count
        }
        #expect(done == 7)
        #expect(load.isFinished)
    }

    @Test func timerERetransmitsTheSameBytesAndTimerFFailsTheLine() throws {
        var load = RegistrationLoad(clients: clients(2), binding: udp, reliable: false, concurrency: 1)
        load.begin(.register, now: .zero)
        let first = load.takeOutgoing()
        #expect(first.count == 1)
        #expect(load.nextDeadline() == .milliseconds(500))
        load.fireTimers(now: .milliseconds(500))
        #expect(load.takeOutgoing() == first)  // §17.1.2.2 Timer E: same request, same branch
        #expect(load.nextDeadline() == .milliseconds(1500))  // E doubled
        // Nothing answers: Timer F (64·T1) ends the transaction; the line fails, the next starts.
        var now = Duration.milliseconds(500)
        while let deadline = load.nextDeadline(), deadline <= .seconds(32) {
            now = deadline
            load.fireTimers(now: now)
            let out = load.takeOutgoing()
            if load.takeOutcomes().first.map({ if case .failed(.timeout) = $0.result { true } else { false } }) == true {
                #expect(out.count == 1)  // the second line's first REGISTER
                #expect(out != first)
                #expect(now == .seconds(32))
                return
            }
        }
        Issue.record("no timeout outcome")
    }

    @Test func reliableFlowsSendOnceAndLateDuplicatesAreIgnored() throws {
        var load = RegistrationLoad(clients: clients(1), binding: udp, reliable: true, concurrency: 1)
        load.begin(.register, now: .zero)
        let request = try #require(load.takeOutgoing().first)
        #expect(load.nextDeadline() == .seconds(32))  // F only: no retransmissions when reliable
        let challenge = answer(request)
        load.receive(challenge, now: .milliseconds(1))
        let second = try #require(load.takeOutgoing().first)
        load.receive(challenge, now: .milliseconds(2))  // a duplicate 401: its transaction is gone
        #expect(load.takeOutgoing().isEmpty)
        load.receive(answer(second), now: .milliseconds(3))
        let outcome = try #require(load.takeOutcomes().first)
        guard case .registered = outcome.result else {
            Issue.record("\(outcome.result)")
            return
        }
        #expect(outcome.latency == .milliseconds(3))
        #expect(load.isFinished)
    }

    @Test func aRejectionFailsOnlyThatLine() throws {
        var load = RegistrationLoad(clients: clients(2), binding: udp, reliable: false, concurrency: 1)
        load.begin(.register, now: .zero)
        let first = try #require(load.takeOutgoing().first)
        load.receive(answer(first, status: 403), now: .milliseconds(1))
        let outcome = try #require(load.takeOutcomes().first)
        guard case .failed(.rejected(status: 403, _)) = outcome.result else {
            Issue.record("\(outcome.result)")
            return
        }
        #expect(load.takeOutgoing().count == 1)  // the next line started
        #expect(!load.isFinished)
    }
}

import SIPCore
import Testing
@testable import SIPDialog

/// The load engine driven line by line, each line on a flow of its own (connection-oriented
/// load, `astra-register --storm/--fleet`), in virtual time against a fake registrar.
@Suite struct RegistrationLoadLineTests {
    let shared = LocalBinding(transport: .wss, host: "invalid", port: nil)

    func binding(_ line: Int) -> LocalBinding { LocalBinding(transport: .wss, host: "line\(line).invalid", port: nil) }

    func engine(_ count: Int, expires: UInt32 = 60) -> RegistrationLoad {
        let ids = SeededIdentifierSource(seed: 5)
        let clients = (0..<count).map { index in
            let user = String(100_000 + index)
            var settings = RegistrationSettings()
            settings.requestedExpires = expires
            settings.instanceID = "urn:uuid:00000000-0000-4000-8000-00000000000\(index)"
            return RegistrationClient(aor: try! SIPURI(parsing: "sip:\(user)@astra.test"),
                                      registrar: try! SIPURI(parsing: "sip:astra.test"),
                                      credentials: DigestCredentials(username: user, password: "astra\(user)"),
                                      settings: settings, ids: ids)
        }
        return RegistrationLoad(clients: clients, binding: shared, reliable: true, concurrency: count,
                                lineTimeout: .seconds(10), paced: true)
    }

    func parse(_ bytes: [UInt8]) -> SIPRequest {
        guard case .request(let request) = try! SIPMessage(parsing: bytes) else { fatalError("not a request") }
        return request
    }

    /// 401 without credentials, else 200 echoing the Contact (its `expires`).
    func answer(_ bytes: [UInt8]) -> SIPResponse {
        let request = parse(bytes)
        if request.headers[.authorization] == nil {
            return SIPResponse(to: request, statusCode: 401, toTag: "r1", headers: SIPHeaders([
                (.wwwAuthenticate, "Digest realm=\"astra.test\", nonce=\"n-\(request.headers.callID!)\", qop=\"auth\""),
            ]))
        }
        return SIPResponse(to: request, statusCode: 200, toTag: "r1",
                           headers: SIPHeaders([(.contact, request.headers[.contact]!)]))
    }

    /// Answers everything the engine sends until it is quiet; returns the outcomes.
    func settle(_ load: inout RegistrationLoad, now: Duration, lines: inout [Int]) -> [RegistrationLoad.Outcome] {
        var outcomes: [RegistrationLoad.Outcome] = []
        while load.hasOutput {
            for (line, bytes) in load.takeOutgoingByLine() {
                lines.append(line)
                load.receive(answer(bytes), now: now)
            }
            outcomes += load.takeOutcomes()
        }
        return outcomes
    }

    @Test func eachLineRegistersOnItsOwnBindingAndSentBy() throws {
        var load = engine(3)
        for line in 0..<3 { load.bind(line, to: binding(line)) }
        let r1 = load.startLine(1, now: .zero)
        #expect(r1)
        let r2 = load.startLine(1, now: .zero)
        #expect(!r2)  // in flight already
        let first = load.takeOutgoingByLine()
        #expect(first.map(\.line) == [1])
        let request = parse(first[0].bytes)
        #expect(try request.headers.topVia()?.host.description == "line1.invalid")
        #expect(request.headers[.contact]?.contains("line1.invalid") == true)

        // An answer whose Via names another line's sent-by is not ours (RFC 3261 §18.1.2).
        var forged = answer(first[0].bytes)
        let via = forged.headers[.via]!.replacing("line1.invalid", with: "line2.invalid")
        forged.headers.set(.via, via)
        load.receive(forged, now: .milliseconds(1))
        let nothing = load.takeOutgoingByLine()
        #expect(nothing.isEmpty)

        load.receive(answer(first[0].bytes), now: .milliseconds(2))
        var lines: [Int] = []
        let outcomes = settle(&load, now: .milliseconds(3), lines: &lines)
        #expect(lines == [1])  // the REGISTER with credentials, on the same line
        #expect(outcomes.count == 1)
        guard case .registered(let result) = outcomes.first?.result else {
            Issue.record("\(outcomes)")
            return
        }
        #expect(result.contactMatched)
        #expect(outcomes.first?.refresh == nil)
        let r3 = load.unregisterLine(1, now: .milliseconds(4))
        #expect(r3)
        let removal = load.takeOutgoingByLine()
        #expect(try parse(removal[0].bytes).headers.expires() == 0)
        load.receive(answer(removal[0].bytes), now: .milliseconds(5))
        guard case .unregistered = load.takeOutcomes().first?.result else {
            Issue.record("no unregistration")
            return
        }
    }

    @Test func aHeldBindingIsRefreshedOnTimeAndALateRefreshIsReported() {
        var load = engine(2, expires: 60)
        load.holdsBindings = true
        var lines: [Int] = []
        for line in 0..<2 {
            load.bind(line, to: binding(line))
            load.startLine(line, now: .zero)
        }
        let registered = settle(&load, now: .milliseconds(10), lines: &lines)
        #expect(registered.count == 2)
        // RegistrationSettings.refreshDelay(60): 50 s (expiry − 10 s margin).
        let r4 = load.nextDeadline()
        #expect(r4 == .milliseconds(10) + .seconds(50))
        load.fireTimers(now: .seconds(50) + .milliseconds(10))
        let refreshed = settle(&load, now: .seconds(50) + .milliseconds(30), lines: &lines)
        #expect(refreshed.count == 2)
        for outcome in refreshed {
            #expect(outcome.refresh == RegistrationLoad.Outcome.Refresh(lateness: .zero, beforeExpiry: true))
        }
        // The next refresh fires 61 s late: after the binding expired.
        let due = Duration.seconds(100) + .milliseconds(30)
        let r5 = load.nextDeadline()
        #expect(r5 == due)
        load.fireTimers(now: due + .seconds(61))
        let late = settle(&load, now: due + .seconds(61), lines: &lines)
        #expect(late.count == 2)
        #expect(late.allSatisfy { $0.refresh?.beforeExpiry == false && $0.refresh?.lateness == .seconds(61) })
    }

    @Test func aLostFlowStopsTheRefreshAndTheLineReRegistersOnItsNextFlow() throws {
        var load = engine(1, expires: 60)
        load.holdsBindings = true
        var lines: [Int] = []
        load.bind(0, to: binding(0))
        load.startLine(0, now: .zero)
        let registered = settle(&load, now: .milliseconds(10), lines: &lines)
        #expect(registered.count == 1)
        let r6 = load.lineLost(0, now: .seconds(1))
        #expect(!r6)  // nothing was in flight
        load.fireTimers(now: .seconds(55))
        #expect(!load.hasOutput)  // the refresh timer went with the flow
        let r7 = load.nextDeadline()
        #expect(r7 == nil)

        let next = LocalBinding(transport: .wss, host: "again.invalid", port: nil)
        load.bind(0, to: next)
        let r8 = load.startLine(0, now: .seconds(56))
        #expect(r8)
        let sent = load.takeOutgoingByLine()
        #expect(try parse(sent[0].bytes).headers.topVia()?.host.description == "again.invalid")
        load.receive(answer(sent[0].bytes), now: .seconds(56))
        let outcomes = settle(&load, now: .seconds(56), lines: &lines)
        guard case .registered = outcomes.first?.result else {
            Issue.record("\(outcomes)")
            return
        }
        #expect(outcomes.first?.refresh == nil)  // a new registration on a new flow, not a refresh

        // Lost with a REGISTER in flight: no outcome; the line can start again later.
        load.fireTimers(now: .seconds(106))
        let refresh = load.takeOutgoingByLine()
        #expect(refresh.count == 1)
        let r9 = load.lineLost(0, now: .seconds(106))
        #expect(r9)
        let none = load.takeOutcomes()
        #expect(none.isEmpty)
        #expect(!load.isInFlight(0))
        #expect(load.inFlight == 0)
    }
}

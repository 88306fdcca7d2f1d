import SIPCore
import Testing
@testable import SIPDialog

/// Load mode's run control (rate, duration, run timeout, stops, progress) and the engine's
/// per-line bound and pacing, in virtual time.
@Suite struct LoadRunControlTests {
    typealias Control = LoadRunControl

    @Test func concurrencyAndLinesBoundTheStarts() {
        var c = Control(settings: .init(concurrency: 2, lines: 3), now: .zero)
        let r1 = c.admit(now: .zero)
        let r2 = c.admit(now: .zero)
        #expect(r1 && r2)
        let r3 = c.admit(now: .zero)
        #expect(!r3)  // two in flight
        c.finished(ok: true, latency: .milliseconds(4))
        let r4 = c.admit(now: .zero)
        #expect(r4)
        c.finished(ok: true, latency: .milliseconds(2))
        let r5 = c.admit(now: .zero)
        #expect(!r5 && c.stopReason == .completed)  // all three started
        c.finished(ok: false, latency: nil)
        #expect(c.isDone && c.failures == 1 && c.finished == 3)
        #expect(c.median == 2)
    }

    @Test func rateSpacesTheStartsAndSaysWhenTheNextOneMay() {
        var c = Control(settings: .init(concurrency: 100, lines: 100, rate: 4), now: .zero)
        let r6 = c.admit(now: .zero)
        #expect(r6)  // the first at once
        let r7 = c.admit(now: .milliseconds(249))
        #expect(!r7)
        #expect(c.nextDeadline(now: .milliseconds(100)) == .milliseconds(250))
        let r8 = c.admit(now: .milliseconds(250))
        #expect(r8)
        var started = 2
        for ms in stride(from: 251, through: 2_000, by: 1) where c.admit(now: .milliseconds(ms)) { started += 1 }
        #expect(started == 9)  // 4/s for 2 s, the first at 0: 0, .25, …, 2.0
    }

    @Test func durationStopsStartingAndTheRunTimeoutAbandons() {
        var d = Control(settings: .init(concurrency: 5, lines: 2, duration: .seconds(3)), now: .zero)
        for _ in 0..<5 {  // cycling: more starts than lines
            let admitted = d.admit(now: .zero)
            #expect(admitted)
        }
        let r9 = d.tick(now: .seconds(3))
        #expect(r9 != nil)
        let r10 = d.admit(now: .seconds(3))
        #expect(d.stopReason == .duration && !d.abandonsRunning && !r10)
        var t = Control(settings: .init(concurrency: 5, lines: 9, runTimeout: .seconds(2)), now: .zero)
        let r11 = t.admit(now: .zero)
        #expect(r11)
        #expect(t.nextDeadline(now: .zero) == .seconds(1))  // progress first
        _ = t.tick(now: .seconds(2))
        #expect(t.stopReason == .runTimeout && t.abandonsRunning)
        t.finished(ok: false, latency: nil, abandoned: true)
        #expect(t.isDone && t.failures == 0)
    }

    @Test func aSignalStopsAndProgressComesOnceASecond() {
        var c = Control(settings: .init(concurrency: 1, lines: 10), now: .zero)
        let r12 = c.admit(now: .zero)
        #expect(r12)
        let r13 = c.tick(now: .milliseconds(999))
        #expect(r13 == nil)
        let report = c.tick(now: .seconds(1))
        #expect(report?.done == 0 && report?.total == 10 && report?.running == 1)
        let r14 = c.tick(now: .milliseconds(1500))
        #expect(r14 == nil)
        c.stop(.signal)
        let r15 = c.admit(now: .seconds(2))
        #expect(c.abandonsRunning && !r15)
    }

    // MARK: The engine side: --timeout per line, pacing, abandoning

    func clients(_ count: Int) -> [RegistrationClient] {
        let ids = SeededIdentifierSource(seed: 5)
        return (0..<count).map { index in
            RegistrationClient(aor: try! SIPURI(parsing: "sip:10\(10 + index)@astra.test"),
                               registrar: try! SIPURI(parsing: "sip:astra.test"), credentials: nil,
                               settings: RegistrationSettings(), ids: ids)
        }
    }
    let udp = LocalBinding(transport: .udp, host: "192.0.2.10", port: 5070)

    @Test func aSilentRegistrarFailsEachLineAtItsTimeoutNotAtTimerF() {
        var load = RegistrationLoad(clients: clients(3), binding: udp, reliable: false, concurrency: 3,
                                    lineTimeout: .seconds(2))
        load.begin(.register, now: .zero)
        #expect(load.takeOutgoing().count == 3)
        var outcomes: [RegistrationLoad.Outcome] = []
        var now = Duration.zero
        while let next = load.nextDeadline(), !load.isFinished {
            now = next
            load.fireTimers(now: now)
            _ = load.takeOutgoing()
            outcomes += load.takeOutcomes()
        }
        #expect(now == .seconds(2))
        #expect(outcomes.count == 3)
        #expect(outcomes.allSatisfy { if case .failed(.timeout) = $0.result { $0.latency == .seconds(2) } else { false } })
    }

    @Test func aPacedEngineStartsOnlyWhenToldAndAbandonsOnStop() {
        var load = RegistrationLoad(clients: clients(3), binding: udp, reliable: false, concurrency: 3, paced: true)
        load.begin(.register, now: .zero)
        #expect(load.takeOutgoing().isEmpty && load.canStart)
        let r16 = load.startNext(now: .zero)
        #expect(r16)
        #expect(load.takeOutgoing().count == 1 && load.inFlight == 1)
        load.abandonInFlight(now: .milliseconds(10))
        let abandoned = load.takeOutcomes()
        #expect(abandoned.count == 1)
        #expect(abandoned.allSatisfy { if case .abandoned = $0.result { true } else { false } })
        #expect(load.isFinished && !load.canStart)
        // Never registered: nothing to unregister (a stop does not wait for a silent server).
        load.begin(.unregister, now: .milliseconds(20))
        #expect(load.takeOutgoing().isEmpty && load.isFinished)
    }
}

import Testing
@testable import SIPDialog

@Suite struct InviteClientTransactionTests {
    func harness(reliable: Bool, timers: TransactionTimers = .rfc3261) -> ClientHarness<InviteClientTransaction<Int>> {
        var h = ClientHarness(machine: InviteClientTransaction<Int>(reliable: reliable, timers: timers),
                              fire: { $0.timerFired($1) })
        h.apply(h.machine.start())
        return h
    }

    @Test func timerADoublesWithoutCapUntilTimerBTimesOut() {
        var h = harness(reliable: false)
        h.run(until: .seconds(40))
        // §17.1.1.2: A = T1, 2T1, 4T1 …; B = 64·T1 = 32 s.
        #expect(h.sends == [0, 500, 1500, 3500, 7500, 15500, 31500].map(ms))
        #expect(h.end == .timeout)
        #expect(h.timers.now == .seconds(32))
        #expect(h.machine.state == .terminated)
    }

    @Test func reliableTransportNeverRetransmits() {
        var h = harness(reliable: true)
        h.run(until: .seconds(40))
        #expect(h.sends == [.zero])
        #expect(h.end == .timeout)
    }

    @Test func timersFollowConfiguredT1() {
        var h = harness(reliable: false, timers: TransactionTimers(t1: ms(100)))
        h.run(until: .seconds(10))
        #expect(h.sends == [0, 100, 300, 700, 1500, 3100, 6300].map(ms))
        #expect(h.timers.now == ms(6400))
        #expect(h.end == .timeout)
    }

    @Test func provisionalStopsRetransmissionButNotTimerB() {
        var h = harness(reliable: false)
        h.run(until: ms(600))
        h.apply(h.machine.receive(status: 180, 180))
        #expect(h.machine.state == .proceeding)
        h.run(until: .seconds(31))
        #expect(h.sends == [0, 500].map(ms))
        #expect(h.delivered == [180])
        h.run(until: .seconds(33))
        #expect(h.end == .timeout)
    }

    @Test func nonSuccessFinalIsACKedDeliveredOnceAndAbsorbedUntilTimerD() {
        var h = harness(reliable: false)
        h.apply(h.machine.receive(status: 100, 100))
        h.apply(h.machine.receive(status: 486, 486))
        #expect(h.machine.state == .completed)
        #expect(h.acks.count == 1)
        // A retransmitted 486 is ACKed again but not passed up (§17.1.1.2).
        h.apply(h.machine.receive(status: 486, 486))
        #expect(h.acks.count == 2)
        #expect(h.delivered == [100, 486])
        h.run(until: .seconds(31))
        #expect(h.end == nil)
        h.run(until: .seconds(33))
        #expect(h.end == .completed)
        #expect(h.timers.now == .seconds(32))
    }

    @Test func nonSuccessFinalOnReliableTransportEndsAtOnce() {
        var h = harness(reliable: true)
        h.apply(h.machine.receive(status: 603, 603))
        #expect(h.acks.count == 1)
        #expect(h.end == .completed)
    }

    @Test func successGoesToAcceptedAndPassesForkedSuccessesUp() {
        var h = harness(reliable: false)
        h.apply(h.machine.receive(status: 200, 200))
        #expect(h.machine.state == .accepted)
        h.apply(h.machine.receive(status: 200, 201))
        #expect(h.delivered == [200, 201])
        #expect(h.acks.isEmpty)  // the TU ACKs a 2xx itself (§13.2.2.4)
        h.run(until: .seconds(40))
        #expect(h.end == .completed)
        #expect(h.timers.now == .seconds(32))  // RFC 6026 Timer M = 64·T1
        #expect(h.sends == [.zero])
    }

    @Test func transportErrorEndsCallingTransaction() {
        var h = harness(reliable: false)
        h.apply(h.machine.transportError())
        #expect(h.end == .transportError)
        #expect(h.timers.pending.isEmpty)
    }
}

@Suite struct NonInviteClientTransactionTests {
    func harness(reliable: Bool) -> ClientHarness<NonInviteClientTransaction<Int>> {
        var h = ClientHarness(machine: NonInviteClientTransaction<Int>(reliable: reliable), fire: { $0.timerFired($1) })
        h.apply(h.machine.start())
        return h
    }

    @Test func timerEDoublesUpToT2UntilTimerF() {
        var h = harness(reliable: false)
        h.run(until: .seconds(40))
        // §17.1.2.2: E = 500, 1000, 2000, 4000, 4000 … ms; F = 32 s.
        #expect(h.sends == [0, 500, 1500, 3500, 7500, 11500, 15500, 19500, 23500, 27500, 31500].map(ms))
        #expect(h.end == .timeout)
        #expect(h.timers.now == .seconds(32))
    }

    @Test func proceedingRetransmitsEveryT2() {
        var h = harness(reliable: false)
        h.apply(h.machine.receive(status: 100, 100))
        h.run(until: ms(12_600))
        #expect(h.sends == [0, 500, 4500, 8500, 12500].map(ms))
    }

    @Test func finalResponseWaitsTimerKThenEnds() {
        var h = harness(reliable: false)
        h.run(until: ms(700))
        h.apply(h.machine.receive(status: 200, 200))
        h.apply(h.machine.receive(status: 200, 200))  // retransmission absorbed
        #expect(h.delivered == [200])
        #expect(h.machine.state == .completed)
        h.run(until: .seconds(6))
        #expect(h.end == .completed)
        #expect(h.timers.now == ms(5700))  // K = T4 after the response
        #expect(h.sends == [0, 500].map(ms))
    }

    @Test func finalResponseOnReliableTransportEndsAtOnce() {
        var h = harness(reliable: true)
        h.apply(h.machine.receive(status: 401, 401))
        #expect(h.end == .completed)
        #expect(h.delivered == [401])
    }

    @Test func transportErrorIsReported() {
        var h = harness(reliable: true)
        h.apply(h.machine.transportError())
        #expect(h.end == .transportError)
    }
}

import Testing
@testable import SIPDialog

@Suite struct InviteServerTransactionTests {
    func harness(reliable: Bool) -> ServerHarness<InviteServerTransaction<Int>> {
        ServerHarness(machine: InviteServerTransaction<Int>(reliable: reliable), fire: { $0.timerFired($1) })
    }

    @Test func retransmittedInviteGetsLastProvisional() {
        var h = harness(reliable: false)
        h.apply(h.machine.receiveRequestRetransmission())
        #expect(h.sent.isEmpty)
        h.apply(h.machine.send(status: 100, 100))
        h.apply(h.machine.send(status: 180, 180))
        h.apply(h.machine.receiveRequestRetransmission())
        #expect(h.sent.map(\.status) == [100, 180, 180])
    }

    @Test func failureResponseRetransmitsWithTimerGUntilTimerH() {
        var h = harness(reliable: false)
        h.apply(h.machine.send(status: 486, 486))
        h.run(until: .seconds(40))
        // §17.2.1: G = 500, 1000, 2000, 4000, 4000 … ms; H = 32 s.
        #expect(h.sent.map(\.at) == [0, 500, 1500, 3500, 7500, 11500, 15500, 19500, 23500, 27500, 31500].map(ms))
        #expect(h.end == .timeout)
    }

    @Test func ackStopsRetransmissionsAndTimerIEnds() {
        var h = harness(reliable: false)
        h.apply(h.machine.send(status: 404, 404))
        h.run(until: ms(600))
        h.apply(h.machine.receiveACK())
        #expect(h.machine.state == .confirmed)
        h.apply(h.machine.receiveACK())  // ACK retransmission absorbed silently
        #expect(h.absorbedACKs == 1)
        h.run(until: .seconds(10))
        #expect(h.end == .completed)
        #expect(h.timers.now == ms(5600))  // I = T4
        #expect(h.sent.count == 2)
    }

    @Test func reliableTransportSendsFinalOnceAndEndsOnACK() {
        var h = harness(reliable: true)
        h.apply(h.machine.send(status: 486, 486))
        h.run(until: .seconds(5))
        #expect(h.sent.count == 1)
        h.apply(h.machine.receiveACK())
        #expect(h.end == .completed)
    }

    @Test func successGoesToAcceptedAndTimerLEnds() {
        var h = harness(reliable: false)
        h.apply(h.machine.send(status: 200, 200))
        h.apply(h.machine.receiveRequestRetransmission())  // absorbed (RFC 6026 §8.7)
        h.apply(h.machine.send(status: 200, 200))  // TU retransmission goes out
        #expect(h.sent.count == 2)
        h.run(until: .seconds(40))
        #expect(h.end == .completed)
        #expect(h.timers.now == .seconds(32))
    }

    @Test func secondFinalIsNotSent() {
        var h = harness(reliable: false)
        h.apply(h.machine.send(status: 486, 486))
        h.apply(h.machine.send(status: 200, 200))
        #expect(h.sent.map(\.status) == [486])
    }
}

@Suite struct NonInviteServerTransactionTests {
    func harness(reliable: Bool) -> ServerHarness<NonInviteServerTransaction<Int>> {
        ServerHarness(machine: NonInviteServerTransaction<Int>(reliable: reliable), fire: { $0.timerFired($1) })
    }

    @Test func retransmissionsAbsorbedThenAnsweredWithLastResponse() {
        var h = harness(reliable: false)
        h.apply(h.machine.receiveRequestRetransmission())
        #expect(h.sent.isEmpty)
        h.apply(h.machine.send(status: 200, 200))
        h.apply(h.machine.receiveRequestRetransmission())
        h.apply(h.machine.send(status: 500, 500))  // discarded in Completed
        #expect(h.sent.map(\.status) == [200, 200])
        h.run(until: .seconds(40))
        #expect(h.end == .completed)
        #expect(h.timers.now == .seconds(32))  // J = 64·T1
    }

    @Test func reliableTransportEndsRightAfterFinal() {
        var h = harness(reliable: true)
        h.apply(h.machine.send(status: 180, 180))
        h.apply(h.machine.receiveRequestRetransmission())
        h.apply(h.machine.send(status: 200, 200))
        #expect(h.sent.map(\.status) == [180, 180, 200])
        #expect(h.end == .completed)
    }

    @Test func transportErrorEnds() {
        var h = harness(reliable: false)
        h.apply(h.machine.transportError())
        #expect(h.end == .transportError)
    }
}

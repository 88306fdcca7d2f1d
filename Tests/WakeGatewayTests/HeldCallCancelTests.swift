import Testing

@testable import WakeGateway

/// The caller's CANCEL in every phase of the wake table (docs/wake-gateway.md "The proxy
/// machine", rows C1…C11, R1…R5, T1, G1…G5): the ack after a CANCEL, two calls for one line, the gone notice, and
/// the CANCEL/failover race: in virtual time, without sockets (``HeldCallRig``).
@Suite struct HeldCallCancelTests {
    /// C1: CANCEL while the registered contact is qualified (held) → 487, nothing downstream; the
    /// qualify's late 200 releases nothing.
    @Test func c1CancelWhileQualifying() {
        var rig = HeldCallRig(live: true)
        rig.on { $0.cancel() }
        #expect(rig.finals == ["487"])
        #expect(rig.reports.contains(.cancelled(phase: "held")))
        rig.on { $0.qualifyAnswered() }
        #expect(rig.downstream.isEmpty)
        #expect(rig.pendingDecisionTimers.isEmpty)
    }

    /// C2: CANCEL while the push awaits its ack → 487; the ack window no longer fails over.
    @Test func c2CancelWhilePushed() {
        var rig = HeldCallRig()
        rig.on { $0.cancel() }
        #expect(rig.finals == ["487"])
        #expect(rig.pendingDecisionTimers.isEmpty)
        rig.advance(by: .seconds(5))
        #expect(!rig.finals.contains("480"))
    }

    /// C3 and "ack after CANCEL": the phone's ack after the caller left is answered
    /// `call_active: false` and releases nothing.
    @Test func c3AckAfterCancel() {
        var rig = HeldCallRig()
        #expect(rig.machine.isActive)
        rig.on { $0.cancel() }
        #expect(!rig.machine.isActive)
        rig.on { $0.pushAcked(registeredSincePush: false) }
        rig.on { $0.registerSeen() }
        #expect(rig.qualifies == 0 && rig.downstream.isEmpty)
        #expect(rig.finals == ["487"])
    }

    /// C4: CANCEL after the ack, while the woken phone registers (no gone notice) → 487, the
    /// REGISTER then releases nothing.
    @Test func c4CancelWhileAcked() {
        var rig = HeldCallRig()
        rig.on { $0.pushAcked(registeredSincePush: false) }
        rig.on { $0.cancel() }
        #expect(rig.finals == ["487"])
        rig.on { $0.registerSeen() }
        #expect(rig.downstream.isEmpty)
        #expect(rig.pendingDecisionTimers.isEmpty)
    }

    /// C5: CANCEL after the release → CANCEL downstream (§16.10), no 487 of our own; the
    /// phone's 487 is relayed and ACKed.
    @Test func c5CancelWhileReleased() {
        var rig = HeldCallRig(live: true)
        rig.on { $0.qualifyAnswered() }
        rig.on { $0.downstreamResponse(status: 180, 180) }
        rig.on { $0.cancel() }
        #expect(rig.downstream == ["INVITE direct", "CANCEL"])
        #expect(rig.finals.isEmpty)
        #expect(rig.reports.contains(.cancelled(phase: "released")))
        rig.on { $0.downstreamResponse(status: 487, 487) }
        #expect(rig.finals == ["relay 487"])
        #expect(rig.downstream.last == "ACK 487")
        #expect(!rig.pending.contains(.ring))
    }

    /// C6: CANCEL after the phone answered → nothing (the caller has its 2xx; BYE is end to end).
    @Test func c6CancelAfterAnswer() {
        var rig = HeldCallRig(live: true)
        rig.on { $0.qualifyAnswered() }
        rig.on { $0.downstreamResponse(status: 200, 200) }
        rig.on { $0.cancel() }
        #expect(rig.downstream == ["INVITE direct"])
        #expect(rig.finals == ["relay 200"])
        #expect(rig.reports.contains(.cancelled(phase: "finished")))
    }

    /// C7: CANCEL after our 480 → nothing more upstream.
    @Test func c7CancelAfterFailover() {
        var rig = HeldCallRig(token: false)
        rig.on { $0.cancel() }
        #expect(rig.finals == ["480"])
        #expect(rig.reports.last == .cancelled(phase: "finished"))
    }

    /// C8: a second CANCEL (a retransmission) changes nothing.
    @Test func c8SecondCancelIsIdempotent() {
        var rig = HeldCallRig(live: true)
        rig.on { $0.qualifyAnswered() }
        rig.on { $0.cancel() }
        rig.on { $0.cancel() }
        #expect(rig.downstream == ["INVITE direct", "CANCEL"])
    }

    /// C9: CANCEL after the phone's non-2xx was relayed (the call ended) → nothing more.
    @Test func c9CancelAfterRelayedFinal() {
        var rig = HeldCallRig(live: true)
        rig.on { $0.qualifyAnswered() }
        rig.on { $0.downstreamResponse(status: 486, 486) }
        rig.on { $0.cancel() }
        #expect(rig.finals == ["relay 486"])
        #expect(rig.downstream == ["INVITE direct", "ACK 486"])
        #expect(rig.reports.last == .cancelled(phase: "finished"))
    }

    /// C10: CANCEL after the drain's 503 → nothing more (the push-id was revoked with the 503).
    @Test func c10CancelAfterDrain() {
        var rig = HeldCallRig()
        rig.on { $0.drain() }
        rig.on { $0.cancel() }
        #expect(rig.finals == ["503"])
        #expect(rig.revoked)
        #expect(rig.reports.last == .cancelled(phase: "finished"))
    }

    /// C11: CANCEL before the decision's first step (the gateway was still reading the line's
    /// registrations from a shared store) → 487; the decision then starts nothing.
    @Test func c11CancelBeforeTheDecision() {
        var rig = HeldCallRig(decided: false)
        #expect(rig.sentUpstream == ["100"])
        rig.on { $0.cancel() }
        rig.on { $0.decide(registrationLive: true, hasToken: true) }
        #expect(rig.finals == ["487"])
        #expect(rig.qualifies == 0 && rig.pushes == 0 && rig.downstream.isEmpty)
        #expect(!rig.reports.contains(.held))
        #expect(rig.pendingDecisionTimers.isEmpty)
    }

    // MARK: The CANCEL/failover race

    /// The ack window's failover and the CANCEL meet: whichever the machine hears first wins,
    /// and the caller gets exactly one final. Failover first: 480, the CANCEL finds it finished.
    @Test func r1FailoverThenCancel() {
        var rig = HeldCallRig()
        rig.advance(by: .seconds(2))
        rig.on { $0.cancel() }
        #expect(rig.finals == ["480"])
        #expect(rig.reports.last == .cancelled(phase: "finished"))
    }

    /// CANCEL first, and the ack-window timer was already due (a shell that could not cancel it
    /// in time delivers it anyway): 487 only, no 480 after it.
    @Test func r2CancelThenStaleAckWindow() {
        var rig = HeldCallRig()
        rig.on { $0.cancel() }
        rig.on { $0.timerFired(.ackWindow) }
        #expect(rig.finals == ["487"])
        #expect(rig.reports.contains(.cancelled(phase: "held")))
    }

    /// The failover forwarded the call to `--failover-uri`, then the CANCEL: it is cancelled
    /// downstream (the leg the decision no longer owns), not answered 487 by us; that leg's 487 is
    /// relayed.
    @Test func r3CancelAfterFailoverToURI() {
        var rig = HeldCallRig(failoverURI: true)
        rig.advance(by: .seconds(2))
        rig.on { $0.cancel() }
        #expect(rig.downstream == ["INVITE failover", "CANCEL"])
        #expect(rig.finals.isEmpty)
        #expect(rig.reports.contains(.cancelled(phase: "released")))
        rig.on { $0.downstreamResponse(status: 487, 487) }
        #expect(rig.finals == ["relay 487"])
    }

    /// The ring timeout's failover (CANCEL down, 480 up), then the caller's CANCEL: nothing more
    /// goes either way, and the phone's 487 is ACKed, not relayed (the caller has its 480).
    @Test func r4RingTimeoutThenCancel() {
        var rig = HeldCallRig(live: true)
        rig.on { $0.qualifyAnswered() }
        rig.on { $0.downstreamResponse(status: 180, 180) }
        rig.advance(by: .seconds(20))
        #expect(rig.finals == ["480"])
        rig.on { $0.cancel() }
        #expect(rig.downstream == ["INVITE direct", "CANCEL"])
        #expect(rig.reports.last == .cancelled(phase: "finished"))
        rig.on { $0.downstreamResponse(status: 487, 487) }
        #expect(rig.finals == ["480"])
        #expect(rig.downstream.last == "ACK 487")
    }

    /// The caller's CANCEL while the phone rings, then the (stale) ring timer: one CANCEL down, no
    /// 480; the phone's 487 is the caller's only final.
    @Test func r5CancelWhileRingingThenStaleRingTimer() {
        var rig = HeldCallRig(live: true)
        rig.on { $0.qualifyAnswered() }
        rig.on { $0.downstreamResponse(status: 180, 180) }
        rig.on { $0.cancel() }
        rig.on { $0.timerFired(.ring) }
        #expect(rig.downstream == ["INVITE direct", "CANCEL"])
        #expect(rig.finals.isEmpty)
        rig.on { $0.downstreamResponse(status: 487, 487) }
        #expect(rig.finals == ["relay 487"])
    }

    // MARK: Two calls for one line

    /// Two INVITEs for the same line are two machines: one push each, one REGISTER releases
    /// both once each is acked, and a CANCEL of one leaves the other ringing.
    @Test func t1TwoCallsForOneLine() {
        var first = HeldCallRig()
        var second = HeldCallRig()
        first.on { $0.pushAcked(registeredSincePush: false) }
        // The line's REGISTER reaches every held call of the line.
        first.on { $0.registerSeen() }
        second.on { $0.registerSeen() }
        #expect(first.qualifies == 1 && second.qualifies == 0)  // the second is not acked yet
        second.on { $0.pushAcked(registeredSincePush: true) }
        first.on { $0.qualifyAnswered() }
        second.on { $0.qualifyAnswered() }
        #expect(first.downstream == ["INVITE phone"] && second.downstream == ["INVITE phone"])
        first.on { $0.cancel() }
        #expect(first.downstream.last == "CANCEL")
        second.on { $0.downstreamResponse(status: 200, 200) }
        #expect(second.finals == ["relay 200"] && first.finals.isEmpty)
    }

    // MARK: Gone notice (--gone-notice)

    /// The caller leaves after the ack: 487 at once; the phone's REGISTER then gets the held
    /// INVITE, CANCELled on its 180 (not on Kamailio's 100); its 487 is ACKed, not relayed.
    @Test func g1GoneNoticeAfterAck() {
        var rig = HeldCallRig(goneNotice: true)
        rig.on { $0.pushAcked(registeredSincePush: false) }
        rig.on { $0.cancel() }
        #expect(rig.finals == ["487"])
        #expect(!rig.machine.isReapable)  // the notice is owed
        rig.on { $0.registerSeen() }
        #expect(rig.downstream == ["INVITE notice"])
        rig.on { $0.downstreamResponse(status: 100, 100) }
        #expect(rig.downstream == ["INVITE notice"])
        rig.on { $0.downstreamResponse(status: 180, 180) }
        #expect(rig.downstream == ["INVITE notice", "CANCEL"])
        rig.on { $0.downstreamResponse(status: 487, 487) }
        #expect(rig.downstream.last == "ACK 487")
        #expect(rig.reports.contains(.goneNoticeDone(status: 487)))
        #expect(rig.finals == ["487"])
        #expect(rig.machine.isReapable)
    }

    /// The user had tapped Answer: the phone's 200 beats the CANCEL → ACK + BYE, and the same
    /// ACK again for the 2xx retransmission; nothing upstream.
    @Test func g2GoneNoticeAnsweredBeforeCancel() {
        var rig = HeldCallRig(goneNotice: true)
        rig.on { $0.pushAcked(registeredSincePush: false) }
        rig.on { $0.cancel() }
        rig.on { $0.registerSeen() }
        rig.on { $0.downstreamResponse(status: 200, 200) }
        rig.on { $0.downstreamResponse(status: 200, 200) }
        #expect(rig.downstream == ["INVITE notice", "ACK+BYE 200", "ACK+BYE 200 again"])
        #expect(rig.finals == ["487"])
    }

    /// A phone that answers 100 but never alerts is CANCELled on that 1xx after the fallback.
    @Test func g3GoneNoticeFallbackCancelsOnAnyProvisional() {
        var rig = HeldCallRig(goneNotice: true)
        rig.on { $0.pushAcked(registeredSincePush: false) }
        rig.on { $0.cancel() }
        rig.on { $0.registerSeen() }
        rig.on { $0.downstreamResponse(status: 100, 100) }
        rig.advance(by: .milliseconds(999))
        #expect(rig.downstream == ["INVITE notice"])
        rig.advance(by: .milliseconds(1))
        #expect(rig.downstream == ["INVITE notice", "CANCEL"])
    }

    /// The caller leaves while the fresh contact is qualified: the notice goes at once.
    @Test func g4GoneNoticeWhileQualifyingFresh() {
        var rig = HeldCallRig(goneNotice: true)
        rig.on { $0.pushAcked(registeredSincePush: false) }
        rig.on { $0.registerSeen() }
        rig.on { $0.cancel() }
        #expect(rig.finals == ["487"])
        #expect(rig.downstream == ["INVITE notice"])
    }

    /// No REGISTER within the register wait: nothing is sent, and the call becomes reapable.
    @Test func g5GoneNoticeOwedButNoRegister() {
        var rig = HeldCallRig(goneNotice: true)
        rig.on { $0.pushAcked(registeredSincePush: false) }
        rig.on { $0.cancel() }
        rig.advance(by: .seconds(6))
        #expect(rig.downstream.isEmpty)
        #expect(rig.machine.isReapable)
    }
}

import Testing

@testable import WakeGateway

/// The wake table of docs/wake-gateway.md ("The proxy machine"), row by row, in virtual time and
/// without sockets: each test is named after its row (W1…W15) and drives ``HeldCallMachine``
/// through ``HeldCallRig``. The CANCEL rows are in ``HeldCallCancelTests``.
@Suite struct HeldCallMachineTests {
    /// W1: the registration looks live, OPTIONS answered → the INVITE goes straight to it
    /// (step 1); 180 and 200 relayed (§16.7), the 100 from downstream not (hop-by-hop).
    @Test func w1LiveContactRingsDirect() {
        var rig = HeldCallRig(live: true)
        #expect(rig.sentUpstream == ["100"])
        #expect(rig.qualifies == 1)
        rig.on { $0.qualifyAnswered() }
        #expect(rig.downstream == ["INVITE direct"])
        #expect(rig.reports.contains(.released(direct: true)))
        rig.on { $0.downstreamResponse(status: 100, 100) }
        rig.on { $0.downstreamResponse(status: 180, 180) }
        rig.on { $0.downstreamResponse(status: 200, 200) }
        #expect(rig.sentUpstream == ["100", "relay 180", "relay 200"])
        #expect(rig.machine.state == .answered)
        #expect(rig.reports.contains(.ringing(status: 180)) && rig.reports.contains(.answered))
        #expect(rig.pendingDecisionTimers.isEmpty)
        // RFC 6026 §8.4: a 2xx retransmission is relayed too.
        rig.on { $0.downstreamResponse(status: 200, 200) }
        #expect(rig.sentUpstream.last == "relay 200")
    }

    /// W2: the qualify gets a final non-2xx (Kamailio's 404: no binding) → push at once, not at
    /// the qualify timer.
    @Test func w2FailedQualifyPushesAtOnce() {
        var rig = HeldCallRig(live: true)
        rig.on { $0.qualifyFailed() }
        #expect(rig.pushes == 1)
        #expect(rig.machine.state == .pushed)
        #expect(rig.pending.contains(.ackWindow) && !rig.pending.contains(.qualify))
    }

    /// W3: the qualify goes unanswered → push when the qualify timer fires.
    @Test func w3SilentQualifyPushesAtTimer() {
        var rig = HeldCallRig(live: true)
        rig.advance(by: .milliseconds(499))
        #expect(rig.pushes == 0)
        rig.advance(by: .milliseconds(1))
        #expect(rig.pushes == 1)
        #expect(rig.machine.state == .pushed)
    }

    /// W4: no live registration, a token: push → ack → REGISTER → qualify 200 → released
    /// (step 2 and 4), then ringing and answered.
    @Test func w4PushAckRegisterReleaseAnswer() {
        var rig = HeldCallRig()
        #expect(rig.pushes == 1 && rig.machine.state == .pushed)
        rig.on { $0.pushAcked(registeredSincePush: false) }
        #expect(rig.machine.state == .acked)
        #expect(rig.pending.contains(.registerWait) && !rig.pending.contains(.ackWindow))
        rig.on { $0.registerSeen() }
        #expect(rig.qualifies == 1)
        rig.on { $0.qualifyAnswered() }
        #expect(rig.downstream == ["INVITE phone"])
        rig.on { $0.downstreamResponse(status: 180, 180) }
        rig.on { $0.downstreamResponse(status: 200, 200) }
        #expect(rig.finals == ["relay 200"])
        #expect(rig.machine.state == .answered)
        #expect(rig.pendingDecisionTimers.isEmpty)
    }

    /// W5: no registration and no token → 480 no_token at once, nothing pushed.
    @Test func w5NoTokenFailsOverAtOnce() {
        let rig = HeldCallRig(token: false)
        #expect(rig.sentUpstream == ["100", "480"])
        #expect(rig.pushes == 0)
        #expect(rig.machine.state == .failedOver(.noToken))
    }

    /// W6: the provider refuses the push → 480 apns_rejected, the push-id revoked.
    @Test func w6RefusedPushFailsOver() {
        var rig = HeldCallRig()
        rig.on { $0.pushRefused() }
        #expect(rig.finals == ["480"])
        #expect(rig.revoked)
        #expect(rig.machine.state == .failedOver(.apnsRejected))
        #expect(rig.pendingDecisionTimers.isEmpty)
    }

    /// W7: no ack within the ack window → 480 no_ack; §17.2.1 Timer G retransmits it at T1,
    /// 2·T1, … until the ACK, which stops G and H.
    @Test func w7NoAckFailsOverAndRetransmitsUntilACK() {
        var rig = HeldCallRig()
        rig.advance(by: .milliseconds(1_999))
        #expect(rig.finals.isEmpty)
        rig.advance(by: .milliseconds(1))
        #expect(rig.finals == ["480"])
        #expect(rig.reports.contains(.failover(.noAck, toURI: false)))
        rig.advance(by: .milliseconds(1_500))  // G at +500, +1500
        #expect(rig.upstream.filter { $0.what == "480" }.map(\.at) == [.seconds(2), .milliseconds(2_500), .milliseconds(3_500)])
        rig.on { $0.ack() }
        #expect(!rig.pending.contains(.upstream(.G)) && !rig.pending.contains(.upstream(.H)))
        rig.advance(by: .seconds(10))
        #expect(rig.finals.count == 3)
    }

    /// W8: acked, but no REGISTER within the register wait → 480 no_register.
    @Test func w8AckWithoutRegisterFailsOver() {
        var rig = HeldCallRig()
        rig.on { $0.pushAcked(registeredSincePush: false) }
        rig.advance(by: .milliseconds(5_999))
        #expect(rig.finals.isEmpty)
        rig.advance(by: .milliseconds(1))
        #expect(rig.finals == ["480"])
        #expect(rig.machine.state == .failedOver(.noRegister))
    }

    /// W9: the REGISTER overtook the ack (different paths) → fed right after the ack.
    @Test func w9RegisterBeforeAckIsFedAfterIt() {
        var rig = HeldCallRig()
        rig.on { $0.registerSeen() }  // before the ack: the decision ignores it
        #expect(rig.qualifies == 0)
        rig.on { $0.pushAcked(registeredSincePush: true) }
        #expect(rig.qualifies == 1)
    }

    /// W10: the fresh contact does not qualify → back to waiting for another REGISTER under the
    /// same register wait; the next one is released.
    @Test func w10FailedFreshQualifyWaitsForAnotherRegister() {
        var rig = HeldCallRig()
        rig.on { $0.pushAcked(registeredSincePush: false) }
        rig.on { $0.registerSeen() }
        rig.advance(by: .milliseconds(500))  // the qualify timer
        #expect(rig.machine.state == .acked && rig.downstream.isEmpty)
        #expect(rig.pending.contains(.registerWait))
        rig.on { $0.registerSeen() }
        rig.on { $0.qualifyAnswered() }
        #expect(rig.downstream == ["INVITE phone"])
    }

    /// W11: released, no final within the ring timeout → CANCEL downstream and 480
    /// invite_timeout; the phone's 487 is ACKed (§17.1.1.3), not relayed.
    @Test func w11RingTimeoutCancelsAndFailsOver() {
        var rig = HeldCallRig(live: true)
        rig.on { $0.qualifyAnswered() }
        rig.on { $0.downstreamResponse(status: 180, 180) }
        rig.advance(by: .seconds(20))
        #expect(rig.downstream == ["INVITE direct", "CANCEL"])
        #expect(rig.finals == ["480"])
        rig.on { $0.downstreamResponse(status: 487, 487) }
        #expect(rig.downstream.last == "ACK 487")
        #expect(rig.finals == ["480"])
    }

    /// W12: the phone answers a non-2xx final (486 busy, 603 declined) → relayed once and ACKed;
    /// its retransmission is ACKed again, not relayed again (§17.1.1.2).
    @Test func w12PhoneFinalIsRelayedAndACKed() {
        var rig = HeldCallRig(live: true)
        rig.on { $0.qualifyAnswered() }
        rig.on { $0.downstreamResponse(status: 603, 603) }
        #expect(rig.finals == ["relay 603"])
        #expect(rig.downstream == ["INVITE direct", "ACK 603"])
        #expect(rig.machine.state == .ended(status: 603))
        rig.on { $0.downstreamResponse(status: 603, 603) }
        #expect(rig.downstream == ["INVITE direct", "ACK 603", "ACK 603"])
        #expect(rig.finals == ["relay 603"])
    }

    /// W13: with `--failover-uri`, the failover forwards the held INVITE there instead of 480;
    /// its answers are relayed as the phone's would be.
    @Test func w13FailoverURIForwards() {
        var rig = HeldCallRig(failoverURI: true)
        rig.advance(by: .seconds(2))
        #expect(rig.downstream == ["INVITE failover"])
        #expect(rig.finals.isEmpty)
        #expect(rig.reports.contains(.failover(.noAck, toURI: true)))
        rig.on { $0.downstreamResponse(status: 200, 200) }
        #expect(rig.finals == ["relay 200"])
    }

    /// W14: stopping (SIGTERM drain) → a held call gets 503; a released one is left to finish.
    @Test func w14DrainAnswersHeldCalls() {
        var held = HeldCallRig()
        held.on { $0.drain() }
        #expect(held.finals == ["503"])
        #expect(held.pendingDecisionTimers.isEmpty)
        var released = HeldCallRig(live: true)
        released.on { $0.qualifyAnswered() }
        released.on { $0.drain() }
        #expect(released.finals.isEmpty)
    }

    /// W15: the phone rings past 64·T1: Timer B bounds only the Calling state (§17.1.1.2), so the
    /// ring timeout, not Timer B, ends the ringing — and here the phone answers first.
    @Test func w15RingingOutlivesTimerB() {
        var rig = HeldCallRig(live: true, ringMs: 60_000)
        rig.on { $0.qualifyAnswered() }
        rig.on { $0.downstreamResponse(status: 180, 180) }
        rig.advance(by: .seconds(40))
        #expect(rig.finals.isEmpty)
        #expect(rig.downstream == ["INVITE direct"])
        rig.on { $0.downstreamResponse(status: 200, 200) }
        #expect(rig.finals == ["relay 200"])
        #expect(rig.reports.contains(.answered))
    }

    /// Timer A (§17.1.1.2): the released INVITE is sent again at T1, 2·T1, 4·T1 until a 1xx.
    @Test func releasedInviteRetransmitsUntilProvisional() {
        var rig = HeldCallRig(live: true)
        rig.on { $0.qualifyAnswered() }
        rig.advance(by: .milliseconds(3_500))
        #expect(rig.downstream == ["INVITE direct", "INVITE direct again", "INVITE direct again", "INVITE direct again"])
        rig.on { $0.downstreamResponse(status: 100, 100) }
        rig.advance(by: .seconds(10))
        #expect(rig.downstream.count == 4)
    }

    /// §17.2.1: a retransmitted INVITE gets the last response again: 100 while held, the 480
    /// once failed over.
    @Test func retransmittedInviteGetsLastResponse() {
        var rig = HeldCallRig()
        rig.on { $0.inviteRetransmitted() }
        #expect(rig.sentUpstream == ["100", "100"])
        rig.on { $0.pushRefused() }
        rig.on { $0.inviteRetransmitted() }
        #expect(rig.sentUpstream == ["100", "100", "480", "480"])
    }

    /// The call's state is freed 64·T1 after its final answer (Timer H/M), on every path.
    @Test func finishedCallIsFreedAfterLinger() {
        var rig = HeldCallRig(token: false)
        rig.on { $0.ack() }
        rig.advance(by: .milliseconds(31_999))
        #expect(!rig.freed)
        rig.advance(by: .milliseconds(1))
        #expect(rig.freed)
    }
}

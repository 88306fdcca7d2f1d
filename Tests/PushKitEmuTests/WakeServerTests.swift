import AstraTestSupport
import PushKitEmu
import Synchronization
import Testing

/// The actor shell in (virtual) real time: the same decision as the simulation, driven by a
/// `TestClock` — the shape a live mode will use with a real SIP user agent.
@Suite struct WakeServerTests {
    final class Recorder: WakeTransport {
        let log = Mutex<[String]>([])
        let reject: APNsRejection?
        init(reject: APNsRejection? = nil) { self.reject = reject }
        func sendQualify(call: Int32) async { log.withLock { $0.append("qualify") } }
        func sendInvite(call: Int32, direct: Bool) async {
            log.withLock { $0.append(direct ? "invite-direct" : "invite") }
        }
        func sendPush(call: Int32) async -> APNsRejection? {
            log.withLock { $0.append("push") }
            return reject
        }
        func sendCancel(call: Int32) async { log.withLock { $0.append("cancel") } }
        func sendGoneNotice(call: Int32) async { log.withLock { $0.append("gone") } }
        func failedOver(call: Int32, reason: FailoverReason) async {
            log.withLock { $0.append("failover:\(reason.rawValue)") }
        }
        var entries: [String] { log.withLock { $0 } }
    }

    @Test func deadPhoneFailsOverAfterQualifyTimeoutPlusAckWindow() async {
        let clock = TestClock()
        let recorder = Recorder()
        let server = WakeServer(clock: clock, transport: recorder)
        await server.incomingCall(0, registrationLive: true, hasToken: true)
        #expect(recorder.entries == ["qualify"])
        #expect(await clock.waitForSleepers(1))
        clock.advance(by: .milliseconds(499))
        #expect(recorder.entries == ["qualify"])
        clock.advance(by: .milliseconds(1))
        #expect(await clock.waitForSleepers(1))
        #expect(recorder.entries == ["qualify", "push"])
        clock.advance(by: .milliseconds(2_000))
        for _ in 0..<1_000 where recorder.entries.count < 3 { await Task.yield() }
        #expect(recorder.entries == ["qualify", "push", "failover:no_ack"])
        #expect(await server.state(of: 0) == .failedOver(.noAck))
    }

    /// A dead phone whose binding is still registered: the registrar answers the qualify 500 at
    /// once, so the push goes out then, not when the qualify timer would have fired.
    @Test func failedQualifyPushesAtOnce() async {
        let clock = TestClock()
        let recorder = Recorder()
        let server = WakeServer(clock: clock, transport: recorder)
        await server.incomingCall(3, registrationLive: true, hasToken: true)
        #expect(await clock.waitForSleepers(1))
        clock.advance(by: .milliseconds(1))
        await server.qualifyFailed(3)
        #expect(recorder.entries == ["qualify", "push"])
        #expect(await server.state(of: 3) == .awaitingAck)
        #expect(await clock.waitForSleepers(1))
        #expect(clock.sleeperCount == 1)  // the ack window only: the qualify timer is gone
        clock.advance(by: .milliseconds(1_999))
        for _ in 0..<100 { await Task.yield() }
        #expect(recorder.entries == ["qualify", "push"])
        clock.advance(by: .milliseconds(1))
        for _ in 0..<1_000 where recorder.entries.count < 3 { await Task.yield() }
        #expect(recorder.entries == ["qualify", "push", "failover:no_ack"])
        #expect(await server.state(of: 3) == .failedOver(.noAck))
    }

    /// The woken phone's fresh contact fails its qualify: the register wait resumes with its
    /// original deadline (no hang, no new 6 s).
    @Test func failedFreshQualifyResumesTheRegisterWait() async {
        let clock = TestClock()
        let recorder = Recorder()
        let server = WakeServer(clock: clock, transport: recorder)
        await server.incomingCall(4, registrationLive: false, hasToken: true)
        await server.ackReceived(4)
        #expect(await clock.waitForSleepers(1))
        clock.advance(by: .milliseconds(1_000))
        await server.registerReceived(4)
        await server.qualifyFailed(4)
        #expect(await server.state(of: 4) == .awaitingRegister)
        #expect(await clock.waitForSleepers(1))
        #expect(clock.nextDeadline == clock.now.advanced(by: .milliseconds(5_000)))
        clock.advance(by: .milliseconds(5_000))
        for _ in 0..<1_000 where recorder.entries.count < 3 { await Task.yield() }
        #expect(recorder.entries == ["push", "qualify", "failover:no_register"])
    }

    @Test func wokenPhoneGetsTheHeldInvite() async {
        let clock = TestClock()
        let recorder = Recorder()
        let server = WakeServer(clock: clock, transport: recorder)
        await server.incomingCall(1, registrationLive: false, hasToken: true)
        await server.ackReceived(1)
        await server.registerReceived(1)
        await server.qualifyAnswered(1)
        await server.answered(1)
        #expect(recorder.entries == ["push", "qualify", "invite"])
        #expect(await server.state(of: 1) == .answered)
        #expect(await clock.waitForSleepers(0))
        #expect(clock.sleeperCount == 0)
    }

    @Test func rejectedPushFailsOverAtOnce() async {
        let clock = TestClock()
        let recorder = Recorder(reject: .unregistered)
        let server = WakeServer(clock: clock, transport: recorder)
        await server.incomingCall(2, registrationLive: false, hasToken: true)
        #expect(recorder.entries == ["push", "failover:apns_rejected"])
    }
}

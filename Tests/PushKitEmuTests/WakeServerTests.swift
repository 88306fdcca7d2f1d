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

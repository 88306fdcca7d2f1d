import AstraTestSupport
import HTTPLite
import PushKitEmu
import SIPCore
import SIPTransport
import Synchronization
import Testing

@testable import WakeGateway

/// `--gone-notice` in virtual time: a caller who hangs up after the phone's ack, before the
/// release, is announced to the freshly registered phone as INVITE + CANCEL (docs/push-wake-rules.md R5).
/// Same rig and the same "nothing sent" discipline as ``WakeGatewayProxyTests`` (its header):
/// timers only run on `clock.advance`, datagrams are awaited with bounded polls, and "not sent"
/// is proven by the decision's state or by the absence of the cause (no 1xx → no CANCEL).
@Suite struct WakeGatewayGoneNoticeTests {
    typealias Rig = WakeGatewayProxyTests
    typealias FakeKamailio = WakeGatewayProxyTests.FakeKamailio

    final class Events: Sendable {
        let list = Mutex<[WakeEvent]>([])
        func named(_ name: String) -> [WakeEvent] { list.withLock { $0.filter { $0.name == name } } }
    }

    static func gateway(
        _ kamailio: FakeKamailio, clock: TestClock, goneNotice: Bool, events: Events
    ) async throws -> WakeGatewayServer<TestClock> {
        try await WakeGatewayProxyTests.gateway(
            kamailio, clock: clock, emit: { event in events.list.withLock { $0.append(event) } }
        ) {
            $0.registerWaitMs = 6_000
            $0.goneNotice = goneNotice
        }
    }

    /// INVITE held, push out, ack in, then the caller's CANCEL: 200 + 487 upstream, nothing
    /// downstream. Returns the push-id.
    static func heldAckedThenCancelled(
        _ kamailio: FakeKamailio, _ gateway: WakeGatewayServer<TestClock>, clock: TestClock
    ) async throws -> String {
        let port = gateway.sipAddress.port
        try await kamailio.send(Rig.invite(kamailio), to: port)
        _ = await kamailio.next { $0.response?.statusCode == 100 }
        #expect(await clock.waitForSleepers(1))  // the ack window
        let pushID = try #require(await gateway.calls[1]?.pushID)
        #expect(Rig.text(await gateway.acked(pushID)) == #"{"acked":true,"call_active":true}"#)
        #expect(await gateway.calls[1]?.machine.decision.state == .awaitingRegister)
        try await kamailio.send(WakeGatewayProxyTests.cancel(kamailio), to: port)
        #expect(await kamailio.next { $0.response?.statusCode == 200 && $0.headers.callID == "call-1@test" } != nil)
        #expect(await kamailio.next { $0.response?.statusCode == 487 } != nil)
        return pushID
    }

    @Test func callerLeavingAfterTheAckGetsInviteAndCancelWithTheFreshRegister() async throws {
        let clock = TestClock()
        let kamailio = try FakeKamailio()
        let events = Events()
        let gateway = try await Self.gateway(kamailio, clock: clock, goneNotice: true, events: events)
        let port = gateway.sipAddress.port
        let pushID = try await Self.heldAckedThenCancelled(kamailio, gateway, clock: clock)
        // The notice is owed: the decision waits for the REGISTER (its register wait stays armed
        // beside the 487's Timer G and H and the call's release timer, 64·T1).
        #expect(await gateway.calls[1]?.machine.decision.state == .cancelledNoticeOwed)
        #expect(await clock.waitForSleepers(4))
        #expect(clock.sleeperCount == 4)
        // A replayed push-id (the grant was redeemed by the ack above) is unknown: 404, nothing released.
        #expect(await gateway.acked(pushID).status == 404)
        let requests = kamailio.received.withLock { list in list.contains { $0.request != nil } }
        #expect(!requests)

        // The woken phone registers: the INVITE goes to it at once (no qualify: the contact is
        // seconds old), marked and with the push-id, exactly as a release.
        try await kamailio.send(Rig.register(kamailio), to: port)
        let invite = try #require(await kamailio.next { $0.request?.method == .invite }).request!
        #expect(invite.headers["X-Astra-Wake"] == "released")
        #expect(invite.headers["X-Astra-Push-Id"] == pushID)
        #expect(invite.headers.callID == "call-1@test")
        #expect(try invite.headers.topVia()?.port == port)
        #expect(await gateway.calls[1]?.machine.decision.state == .cancelled)
        #expect(events.named("gone_notice").first?["channel"] == .string("invite_cancel"))
        // RFC 3261 §9.1: no CANCEL before a provisional answer (none was sent: nothing can trigger it).
        let early = kamailio.received.withLock { list in
            list.contains { $0.request?.method == .cancel || $0.request?.method == .options }
        }
        #expect(!early)

        // Kamailio's own 100 Trying is not enough: it leaves before Kamailio relays the INVITE,
        // and a CANCEL in that gap would kill the branch unsent. Only the fallback timer (not
        // advanced) or an alerting answer can send the CANCEL now.
        try await kamailio.udp.send(SIPResponse(to: invite, statusCode: 100).serialized(), to: gateway.sipAddress)
        #expect(await eventually { await gateway.calls[1]?.notice?.provisional == true })
        let afterTrying = kamailio.received.withLock { list in list.contains { $0.request?.method == .cancel } }
        #expect(!afterTrying)
        // The phone's 180 (it claimed its placeholder): now the CANCEL, same branch, RFC 3326 Reason.
        try await kamailio.udp.send(
            SIPResponse(to: invite, statusCode: 180, toTag: "ph").serialized(), to: gateway.sipAddress)
        let cancel = try #require(await kamailio.next { $0.request?.method == .cancel }).request!
        #expect(try cancel.headers.topVia()?.branch == invite.headers.topVia()?.branch)
        #expect(cancel.headers.callID == "call-1@test")
        #expect(try cancel.headers.cseq()?.method == .cancel)
        #expect(cancel.headers["Reason"]?.contains("caller_left") == true)
        #expect(cancel.uri == invite.uri)
        // A 183 after it changes nothing: one CANCEL, nothing upstream.
        try await kamailio.udp.send(
            SIPResponse(to: invite, statusCode: 183, toTag: "ph").serialized(), to: gateway.sipAddress)
        try await kamailio.udp.send(SIPResponse(to: cancel, statusCode: 200).serialized(), to: gateway.sipAddress)
        // The phone's 487: ACKed downstream, not relayed (the caller has its own 487).
        try await kamailio.udp.send(
            SIPResponse(to: invite, statusCode: 487, toTag: "ph").serialized(), to: gateway.sipAddress)
        let ack = try #require(await kamailio.next { $0.request?.method == .ack }).request!
        #expect(try ack.headers.topVia()?.branch == invite.headers.topVia()?.branch)
        #expect(await eventually { await gateway.calls[1]?.notice?.done == true })
        #expect(events.named("gone_notice_done").first?["status"] == .int(487))
        // The one CANCEL was taken above; no 180 or 487 went back upstream.
        let (cancels, relayed) = kamailio.received.withLock { list in
            (
                list.filter { $0.request?.method == .cancel }.count,
                list.contains { [180, 183, 487].contains($0.response?.statusCode ?? 0) }
            )
        }
        #expect(cancels == 0)
        #expect(!relayed)
        await gateway.stop()
    }

    /// The user had tapped Answer on the placeholder: the phone answers the INVITE before the
    /// CANCEL lands. The gateway, the only UAC of this leg, ACKs the 2xx and hangs up with BYE
    /// through the Record-Route set; the 200 is not relayed to the departed caller.
    @Test func answerThatRacesTheCancelIsAckedAndEndedWithBye() async throws {
        let clock = TestClock()
        let kamailio = try FakeKamailio()
        let events = Events()
        let gateway = try await Self.gateway(kamailio, clock: clock, goneNotice: true, events: events)
        _ = try await Self.heldAckedThenCancelled(kamailio, gateway, clock: clock)
        try await kamailio.send(Rig.register(kamailio), to: gateway.sipAddress.port)
        let invite = try #require(await kamailio.next { $0.request?.method == .invite }).request!
        var headers = SIPHeaders()
        headers.add(.recordRoute, "<sip:127.0.0.1:5061;transport=ws;r2=on;lr>")
        headers.add(.recordRoute, "<sip:127.0.0.1:\(kamailio.udp.local.port);r2=on;lr>")
        headers.add(.contact, "<sip:1002@phone.invalid;transport=ws>")
        let ok = SIPResponse(to: invite, statusCode: 200, toTag: "ph", headers: headers)
        try await kamailio.udp.send(ok.serialized(), to: gateway.sipAddress)
        let ack = try #require(await kamailio.next { $0.request?.method == .ack }).request!
        let bye = try #require(await kamailio.next { $0.request?.method == .bye }).request!
        for request in [ack, bye] {
            #expect(request.uri.description == "sip:1002@phone.invalid;transport=ws")
            #expect(request.headers.values(.route).first?.contains("\(kamailio.udp.local.port)") == true)
            #expect(request.headers.values(.route).count == 2)
            #expect(request.headers.callID == "call-1@test")
            #expect(request.headers[.to]?.contains("tag=ph") == true)
        }
        let inviteSequence = try #require(try invite.headers.cseq()).sequence
        #expect(try bye.headers.cseq()?.sequence == inviteSequence + 1)
        // A 2xx retransmission gets the same ACK again, no second BYE.
        try await kamailio.udp.send(ok.serialized(), to: gateway.sipAddress)
        let again = try #require(await kamailio.next { $0.request?.method == .ack }).request!
        #expect(again.serialized() == ack.serialized())
        #expect(events.named("gone_notice_done").first?["status"] == .int(200))
        let (extra, relayed) = kamailio.received.withLock { list in
            (
                list.contains { $0.request?.method == .bye || $0.request?.method == .cancel },
                list.contains { $0.response?.statusCode == 200 && $0.headers.callID == "call-1@test" }
            )
        }
        #expect(!extra)  // one BYE, no CANCEL
        #expect(!relayed)  // the 200 did not go to the departed caller
        await gateway.stop()
    }

    /// A phone that answers 100 but never alerts: after the fallback (1 s on the gateway clock)
    /// the CANCEL goes out on the 1xx already seen.
    @Test func phoneThatNeverAlertsIsCancelledAfterTheFallback() async throws {
        let clock = TestClock()
        let kamailio = try FakeKamailio()
        let gateway = try await Self.gateway(kamailio, clock: clock, goneNotice: true, events: Events())
        _ = try await Self.heldAckedThenCancelled(kamailio, gateway, clock: clock)
        // The caller's ACK for its 487 stops Timer G: the clock's sleepers are the gateway's own.
        try await kamailio.send(
            """
            ACK sip:1002@127.0.0.1 SIP/2.0
            Via: SIP/2.0/UDP 127.0.0.1:\(kamailio.udp.local.port);branch=z9hG4bK-k1
            Max-Forwards: 70
            From: <sip:1001@127.0.0.1>;tag=c1
            To: <sip:1002@127.0.0.1>;tag=x
            Call-ID: call-1@test
            CSeq: 2 ACK
            Content-Length: 0


            """, to: gateway.sipAddress.port)
        #expect(await eventually { await gateway.calls[1]?.machine.upstream.state == .terminated })
        try await kamailio.send(Rig.register(kamailio), to: gateway.sipAddress.port)
        let invite = try #require(await kamailio.next { $0.request?.method == .invite }).request!
        try await kamailio.udp.send(SIPResponse(to: invite, statusCode: 100).serialized(), to: gateway.sipAddress)
        #expect(await eventually { await gateway.calls[1]?.notice?.provisional == true })
        // Left: the register wait (kept while the notice was owed, now disarmed) is gone, Timer A
        // stopped at the 100; the sleepers are the fallback, the notice's Timer B (64·T1, its
        // INVITE client transaction) and the call's release timer (32 s).
        #expect(await eventually { clock.sleeperCount == 3 })
        #expect(clock.advance(by: .milliseconds(999)) == 0)  // nothing due: no CANCEL can go out
        #expect(clock.advance(by: .milliseconds(1)) == 1)
        let cancel = try #require(await kamailio.next { $0.request?.method == .cancel }).request!
        #expect(try cancel.headers.topVia()?.branch == invite.headers.topVia()?.branch)
        await gateway.stop()
    }

    /// The notice is owed only for the register wait: a REGISTER after it sends nothing.
    @Test func noticeExpiresWithTheRegisterWait() async throws {
        let clock = TestClock()
        let kamailio = try FakeKamailio()
        let gateway = try await Self.gateway(kamailio, clock: clock, goneNotice: true, events: Events())
        _ = try await Self.heldAckedThenCancelled(kamailio, gateway, clock: clock)
        #expect(await clock.waitForSleepers(2))  // register wait + the 487's Timer G
        clock.advance(by: .milliseconds(6_000))
        #expect(await eventually { await gateway.calls[1]?.machine.decision.state == .cancelled })
        // `.cancelled` answers a REGISTER with no action: nothing can go to the phone.
        await gateway.step(1) { $0.registerSeen() }
        #expect(await gateway.calls[1]?.forwarded == nil)
        await gateway.stop()
    }

    /// Option off (v2): the caller's CANCEL after the ack ends the decision; the REGISTER that
    /// follows sends nothing to the phone (its placeholder times out, R5 `failed`).
    @Test func withoutTheOptionNothingGoesToThePhone() async throws {
        let clock = TestClock()
        let kamailio = try FakeKamailio()
        let events = Events()
        let gateway = try await Self.gateway(kamailio, clock: clock, goneNotice: false, events: events)
        _ = try await Self.heldAckedThenCancelled(kamailio, gateway, clock: clock)
        #expect(await gateway.calls[1]?.machine.decision.state == .cancelled)
        #expect(await clock.waitForSleepers(3))
        #expect(clock.sleeperCount == 3)  // the 487's Timer G and H and the release timer: no register wait left
        try await kamailio.send(Rig.register(kamailio), to: gateway.sipAddress.port)
        #expect(await kamailio.next { $0.response?.statusCode == 200 && $0.headers.callID == "reg@test" } != nil)
        #expect(await eventually { !events.named("register_seen").isEmpty })
        #expect(await gateway.calls[1]?.forwarded == nil)
        #expect(events.named("gone_notice").isEmpty)
        await gateway.stop()
    }
}

extension HeldCall {
    /// The gone notice's leg, as the call's machine holds it.
    var notice: HeldCallMachine<SIPResponse>.Notice? {
        if case .cancelled(let notice?) = machine.state { return notice }
        return nil
    }
}

import AstraTestSupport
import HTTPLite
import SIPCore
import SIPTransport
import Synchronization
import Testing

@testable import WakeGateway

/// The gateway's proxy behaviour and wake timers in virtual time: a ``TestClock`` drives the
/// decision and the retransmissions; a UDP socket in the test plays Kamailio.
///
/// How the tests know the gateway is quiet without a wall-clock settle delay: every timer of
/// the gateway (the decision's one timer per call, Timer A/G) sleeps on the test clock, so only
/// `clock.advance` can start timed work, and `advance` returns how many sleepers it woke.
/// "Nothing before the ack window" is `advance(by: window - 1 ms) == 0` (no timer was due: there
/// is nothing to wait for), after `waitForSleepers` proved the timer is armed. When an advance
/// does wake timers, the test first checks which sleepers exist (`sleeperCount`), then waits for
/// what the woken ones send (a positive datagram) before asserting what was not sent. Datagrams
/// from the gateway are awaited with `eventuallySome` (a bounded poll on real UDP).
@Suite struct WakeGatewayProxyTests {
    final class FakeKamailio: Sendable {
        let udp: UDPTransport
        let received = Inbox()
        let task: Task<Void, Never>

        final class Inbox: Sendable {
            let list = Mutex<[SIPMessage]>([])
            func withLock<R>(_ body: (inout [SIPMessage]) -> R) -> R { list.withLock { body(&$0) } }
        }

        init() throws {
            udp = try UDPTransport(local: SocketAddress(ip: "127.0.0.1", port: 0)!, log: .discard)
            let udp = udp
            let received = received
            task = Task { for await message in udp.events { received.withLock { $0.append(message.message) } } }
        }

        /// Takes the first received message matching `where` (bounded poll on the real socket).
        func next(_ where: (SIPMessage) -> Bool) async -> SIPMessage? {
            await eventuallySome(timeout: .seconds(15)) {
                received.withLock { list -> SIPMessage? in
                    guard let i = list.firstIndex(where: `where`) else { return nil }
                    return list.remove(at: i)
                }
            }
        }

        func send(_ text: String, to port: UInt16) async throws {
            try await udp.send(
                Array(text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\r\n").utf8),
                to: SocketAddress(ip: "127.0.0.1", port: port)!)
        }
    }

    static func invite(_ kamailio: FakeKamailio, branch: String = "z9hG4bK-k1") -> String {
        """
        INVITE sip:1002@127.0.0.1 SIP/2.0
        Via: SIP/2.0/UDP 127.0.0.1:\(kamailio.udp.local.port);branch=\(branch)
        Via: SIP/2.0/UDP 127.0.0.1:40000;branch=z9hG4bK-caller;rport=40000
        Max-Forwards: 69
        From: <sip:1001@127.0.0.1>;tag=c1
        To: <sip:1002@127.0.0.1>
        Call-ID: call-1@test
        CSeq: 2 INVITE
        Contact: <sip:1001@127.0.0.1:40000>
        X-Astra-Wake: released
        Content-Length: 0


        """
    }

    /// A gateway on ephemeral ports in front of `kamailio`, ack window 2 s, with line 1002's
    /// push token registered through the contract endpoint. `configure` adjusts the rest;
    /// `emit` receives its events.
    static func gateway<C: Clock<Duration>>(
        _ kamailio: FakeKamailio, clock: C, emit: @escaping @Sendable (WakeEvent) -> Void = { _ in },
        configure: (inout WakeGatewayConfiguration) -> Void = { _ in }, token: String = String(repeating: "0a", count: 32),
        platform: String = "ios", state: any StateStore = MemoryStateStore()
    ) async throws -> WakeGatewayServer<C> {
        var configuration = WakeGatewayConfiguration()
        configuration.sipPort = 0
        configuration.httpPort = 0
        configuration.apnsDevicePort = 0
        configuration.kamailio = kamailio.udp.local
        configuration.ackWindowMs = 2_000
        configuration.auth = TestAuth.auth
        configure(&configuration)
        let gateway = try WakeGatewayServer(
            configuration: configuration, clock: clock, ids: SeededIdentifierSource(seed: 1), state: state, emit: emit)
        _ = try await gateway.start()
        let body =
            #"{"asterisk_endpoint":"1002","token":"\#(token)","environment":"sandbox","bundle_id":"com.example.astra","platform":"\#(platform)"}"#
        let response = await gateway.handleHTTP(
            try HTTPRequest(
                method: "POST", target: "/api/v1/users/voip-push-token",
                headers: [HTTPHeader("Host", "h"), TestAuth.authorization("1002")],
                body: Array(body.utf8)))
        #expect(response.status == 200)
        return gateway
    }

    /// The caller's CANCEL for the INVITE of ``invite(_:branch:)`` (same branch, §9.1).
    static func cancel(_ kamailio: FakeKamailio) -> String {
        """
        CANCEL sip:1002@127.0.0.1 SIP/2.0
        Via: SIP/2.0/UDP 127.0.0.1:\(kamailio.udp.local.port);branch=z9hG4bK-k1
        Max-Forwards: 70
        From: <sip:1001@127.0.0.1>;tag=c1
        To: <sip:1002@127.0.0.1>
        Call-ID: call-1@test
        CSeq: 2 CANCEL
        Content-Length: 0


        """
    }

    static func text(_ response: HTTPResponse) -> String {
        String(decoding: response.body.filter { $0 != 10 && $0 != 13 }, as: UTF8.self)
    }

    static func register(_ kamailio: FakeKamailio, callID: String = "reg@test", expires: Int = 300) -> String {
        """
        REGISTER sip:127.0.0.1 SIP/2.0
        Via: SIP/2.0/UDP 127.0.0.1:\(kamailio.udp.local.port);branch=z9hG4bK-\(callID.prefix(5))
        Max-Forwards: 70
        From: <sip:1002@127.0.0.1>;tag=r
        To: <sip:1002@127.0.0.1>
        Call-ID: \(callID)
        CSeq: 5 REGISTER
        Contact: <sip:1002@abc.invalid;transport=ws>;expires=\(expires)
        Content-Length: 0


        """
    }

    /// Dead phone, binding still registered: Kamailio answers the qualify 500 at once (no flow to
    /// the WS contact); the push goes out then, not at the qualify timer, and the failover comes
    /// one ack window later.
    @Test(arguments: [500, 408, 404, 480])
    func failedQualifyPushesAtOnce(status: Int) async throws {
        let clock = TestClock()
        let kamailio = try FakeKamailio()
        let gateway = try await Self.gateway(kamailio, clock: clock)
        let port = gateway.sipAddress.port
        try await kamailio.send(Self.register(kamailio, callID: "old-reg@test"), to: port)
        #expect(await kamailio.next { $0.response?.statusCode == 200 && $0.headers.callID == "old-reg@test" } != nil)
        try await kamailio.send(Self.invite(kamailio), to: port)
        _ = await kamailio.next { $0.response?.statusCode == 100 }
        let options = try #require(await kamailio.next { $0.request?.method == .options }).request!
        #expect(await gateway.calls[1]?.pushID == nil)
        try await kamailio.udp.send(SIPResponse(to: options, statusCode: status).serialized(), to: gateway.sipAddress)
        // No virtual time passes: the 500 alone sends the push.
        #expect(await eventually(timeout: .seconds(15)) { await gateway.calls[1]?.pushID != nil })
        #expect(await gateway.calls[1]?.machine.decision.state == .awaitingAck)
        #expect(await clock.waitForSleepers(1))  // the ack window is armed
        #expect(clock.advance(by: .milliseconds(1_999)) == 0)  // no timer due: nothing can fail over
        #expect(kamailio.received.withLock { $0.contains { ($0.response?.statusCode ?? 0) >= 300 } } == false)
        clock.advance(by: .milliseconds(1))
        let final = try #require(await kamailio.next { ($0.response?.statusCode ?? 0) >= 300 })
        #expect(final.response?.statusCode == 480)
        await gateway.stop()
    }

    @Test func noAckFailsOverExactlyAtTheAckWindow() async throws {
        let clock = TestClock()
        let kamailio = try FakeKamailio()
        let gateway = try await Self.gateway(kamailio, clock: clock)
        let port = gateway.sipAddress.port
        try await kamailio.send(Self.invite(kamailio), to: port)
        let trying = await kamailio.next { $0.response?.statusCode == 100 }
        #expect(trying != nil)
        #expect(await clock.waitForSleepers(1))
        #expect(await gateway.calls[1]?.pushID != nil)
        #expect(clock.advance(by: .milliseconds(1_999)) == 0)  // no timer due: nothing can fail over
        #expect(kamailio.received.withLock { $0.contains { ($0.response?.statusCode ?? 0) >= 300 } } == false)
        clock.advance(by: .milliseconds(1))
        let final = try #require(await kamailio.next { ($0.response?.statusCode ?? 0) >= 300 })
        #expect(final.response?.statusCode == 480)
        #expect(final.headers["Reason"]?.contains("no_ack") == true)
        #expect(final.headers.values(.via).count == 2)  // upstream Vias untouched, none of ours
        // A late ack finds no grant (revoked at the failover): 404, which the phone reads as gone.
        let pushID = try #require(await gateway.calls[1]?.pushID)
        let late = await gateway.acked(pushID)
        #expect(late.status == 404)
        // Timer G: retransmitted at +500 ms until the ACK. Its sleep starts in the transaction's
        // own task, which may not have run yet when the 480 arrives here: wait until it is armed.
        let timerG = clock.now.advanced(by: .milliseconds(500))
        #expect(await eventually { clock.nextDeadline == timerG })
        clock.advance(by: .milliseconds(500))
        #expect(await kamailio.next { $0.response?.statusCode == 480 } != nil)
        await gateway.stop()
    }

    @Test func ackRegisterQualifyReleaseAndRelayResponses() async throws {
        let clock = TestClock()
        let kamailio = try FakeKamailio()
        let gateway = try await Self.gateway(kamailio, clock: clock)
        let port = gateway.sipAddress.port
        try await kamailio.send(Self.invite(kamailio), to: port)
        _ = await kamailio.next { $0.response?.statusCode == 100 }
        #expect(await clock.waitForSleepers(1))
        let pushID = try #require(await gateway.calls[1]?.pushID)
        let ack = await gateway.acked(pushID)
        #expect(ack.status == 200)
        #expect(Self.text(ack) == #"{"acked":true,"call_active":true}"#)
        #expect(await gateway.acked("nope").status == 404)
        try await kamailio.send(
            """
            REGISTER sip:127.0.0.1 SIP/2.0
            Via: SIP/2.0/UDP 127.0.0.1:\(kamailio.udp.local.port);branch=z9hG4bK-r1
            Max-Forwards: 70
            From: <sip:1002@127.0.0.1>;tag=r
            To: <sip:1002@127.0.0.1>
            Call-ID: reg@test
            CSeq: 5 REGISTER
            Contact: <sip:1002@abc.invalid;transport=ws>;expires=300
            Content-Length: 0


            """, to: port)
        #expect(await kamailio.next { $0.response?.statusCode == 200 && $0.headers.callID == "reg@test" } != nil)
        let options = try #require(await kamailio.next { $0.request?.method == .options }).request!
        #expect(options.uri.description == "sip:1002@127.0.0.1")
        #expect(options.headers["X-Astra-Wake"] != nil)
        let qualifyOK = SIPResponse(to: options, statusCode: 200, toTag: "ph")
        try await kamailio.udp.send(qualifyOK.serialized(), to: gateway.sipAddress)
        let released = try #require(await kamailio.next { $0.request?.method == .invite }).request!
        #expect(released.headers["X-Astra-Wake"] == "released")
        #expect(released.headers["X-Astra-Push-Id"] == pushID)
        #expect(released.headers.values(.via).count == 3)
        #expect(try released.headers.topVia()?.port == port)
        #expect(try released.headers.maxForwards() == 68)
        #expect(released.headers.callID == "call-1@test")
        // 180 and 200 from the phone come back with our Via removed.
        for status in [180, 200] {
            let response = SIPResponse(to: released, statusCode: status, toTag: "ph")
            try await kamailio.udp.send(response.serialized(), to: gateway.sipAddress)
            let relayed = try #require(
                await kamailio.next { $0.response?.statusCode == status && $0.headers.callID == "call-1@test" })
            #expect(relayed.headers.values(.via).count == 2)
            #expect(try relayed.headers.topVia()?.branch == "z9hG4bK-k1")
        }
        await gateway.stop()
    }

    @Test func cancelWhileHeldAnswers200Then487() async throws {
        let clock = TestClock()
        let kamailio = try FakeKamailio()
        let gateway = try await Self.gateway(kamailio, clock: clock)
        let port = gateway.sipAddress.port
        try await kamailio.send(Self.invite(kamailio), to: port)
        _ = await kamailio.next { $0.response?.statusCode == 100 }
        try await kamailio.send(Self.cancel(kamailio), to: port)
        #expect(await kamailio.next { $0.response?.statusCode == 200 } != nil)
        #expect(await kamailio.next { $0.response?.statusCode == 487 } != nil)
        // The phone wakes after the caller left: the ack says so (cancel-before-wake, R5).
        let pushID = try #require(await gateway.calls[1]?.pushID)
        let ack = await gateway.acked(pushID)
        #expect(ack.status == 200)
        #expect(Self.text(ack) == #"{"acked":true,"call_active":false}"#)
        // The CANCEL disarmed the decision's timer before the 487 went out; the sleepers left are
        // the 487's Timer G and H (the upstream transaction) and the call's release after 64·T1
        // (32 s). Ten seconds wake only Timer G, and its retransmission proves it ran.
        #expect(await clock.waitForSleepers(3))
        #expect(clock.sleeperCount == 3)
        #expect(clock.advance(by: .seconds(10)) == 1)
        #expect(await kamailio.next { $0.response?.statusCode == 487 } != nil)
        #expect(
            kamailio.received.withLock {
                $0.contains { $0.request?.method == .invite || $0.response?.statusCode == 480 }
            } == false)
        await gateway.stop()
    }
}

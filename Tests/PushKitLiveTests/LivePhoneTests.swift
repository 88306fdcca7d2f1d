import AstraTestSupport
import PushKitEmu
import SIPCore
import Testing

@testable import PushKitLive

/// The live phone against an in-test APNs device server and gateway HTTP API (no SIP peer: its
/// REGISTER goes to a closed port and fails, which these tests do not depend on).
///
/// Policy timers (placeholder and answer-action deadlines, the policy's own timers) run on a
/// ``TestClock``: time moves only by `advance`, whose return value (sleepers woken) proves that
/// nothing was due. Real IO (device connection, HTTP to the fake gateway) is awaited with
/// ``eventually(_:_:)`` on a positive condition, never with a fixed delay.
@Suite("Live phone, fake peers") struct LivePhoneTests {
    static func phone(
        _ policy: PolicyChoice, apns: FakeAPNs, gateway: FakeGateway, clock: TestClock = TestClock()
    ) -> (LivePhone<ReferencePolicy>, LiveTimeline, CallDirectory) {
        let line = Line(
            user: "1050", password: "astra1050", domain: "127.0.0.1", server: LineServer(host: "127.0.0.1", port: 9),
            transport: .tcp)
        var config = LivePhoneConfig(
            line: line, gateway: GatewayClient(port: gateway.port), apnsDevicePort: apns.port,
            token: PushToken(1, 2, 3, 4))
        config.settings.placeholderTimeoutMs = 400
        let timeline = LiveTimeline()
        let directory = CallDirectory()
        return (
            LivePhone(
                config: config, policy: policy.policy(config.settings), timeline: timeline, directory: directory,
                clock: clock),
            timeline, directory
        )
    }

    @Test func deviceConnectionAnnouncesTheTokenAndParsesPushLines() async throws {
        let apns = try FakeAPNs()
        defer { apns.stop() }
        let connection = try await APNsDeviceConnection.open(
            port: apns.port, tokenHex: "ab" + String(repeating: "0", count: 62), topic: "com.example.astra.voip",
            environment: "sandbox")
        #expect(await eventually { apns.connected })
        #expect(apns.hellos.first?.contains("\"topic\":\"com.example.astra.voip\"") == true)
        #expect(apns.hellos.first?.contains("\"environment\":\"sandbox\"") == true)
        apns.push(pushID: "p-1", callID: "call-abc")
        var iterator = connection.pushes.makeAsyncIterator()
        let push = try #require(await iterator.next())
        #expect(push.pushID == "p-1")
        #expect(push.callID == "call-abc")
        #expect(push.pushType == "voip")
        #expect(push.priority == 10)
        #expect(push.expiration == 0)
        connection.close()
        #expect(await eventually { !apns.connected })
    }

    /// The gateway's failover 480 names its reason in `Reason` (RFC 3326); the caller reads it.
    @Test func failoverReasonFromTheReasonHeader() {
        #expect(ResponseTap.failoverReason(#"SIP;cause=480;text="wake no_ack""#) == .noAck)
        #expect(ResponseTap.failoverReason(#"SIP ; cause=480 ; text="wake no_register""#) == .noRegister)
        #expect(ResponseTap.failoverReason(#"SIP;cause=480;text="wake apns_rejected""#) == .apnsRejected)
        #expect(ResponseTap.failoverReason(#"SIP;cause=480;text="Temporarily Unavailable""#) == nil)
        #expect(ResponseTap.failoverReason("SIP;cause=480") == nil)
        #expect(ResponseTap.failoverReason(#"Q.850;cause=16;text="wake nonsense""#) == nil)
    }

    @Test func httpResponseParsing() {
        let text = "HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\n{\"call_active\":true}"
        let response = GatewayClient.parse(Array(text.utf8), complete: false)
        #expect(response?.status == 200)
        #expect(response?.json?["call_active"] == .bool(true))
        #expect(
            GatewayClient.parse(Array("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nab".utf8), complete: false) == nil)
        #expect(
            LivePhone<ReferencePolicy>.callActive(.init(status: 200, body: Array("{\"call_active\":false}".utf8)))
                == false)
        #expect(LivePhone<ReferencePolicy>.callActive(.init(status: 410, body: [])) == false)
        #expect(LivePhone<ReferencePolicy>.callActive(.init(status: 200, body: [])) == true)
    }

    /// Correct policy: the push is reported before the handler returns, the ack is POSTed with
    /// the push-id, no violation. Naive: networking before the report (R1).
    @Test(arguments: [PolicyChoice.correct, .naive]) func pushIsReportedAndAcked(policy: PolicyChoice) async throws {
        let apns = try FakeAPNs(), gateway = try FakeGateway()
        defer { apns.stop(); gateway.stop() }
        let clock = TestClock()
        let (phone, timeline, directory) = Self.phone(policy, apns: apns, gateway: gateway, clock: clock)
        try await phone.setUp(app: .killed, locked: false, online: true)
        #expect(await eventually { apns.connected })
        #expect(directory.index(of: "call-1") == 0)
        apns.push(pushID: "push-77", callID: "call-1")
        #expect(await eventually { gateway.log.all.contains { $0.line.contains("voip-push-ack") } })
        let ack = try #require(gateway.log.all.first { $0.line.contains("voip-push-ack") })
        #expect(ack.line.hasPrefix("POST /api/v1/users/voip-push-ack"))
        #expect(ack.body == "{\"push_id\":\"push-77\"}")
        #expect(await eventually { !timeline.events(named: "ack_response").isEmpty })
        let names = timeline.events.map(\.event.name)
        #expect(names.starts(with: ["apns_delivered", "app_launch"]))
        let report = try #require(names.firstIndex(of: "callkit_report"))
        let returned = try #require(names.firstIndex(of: "handler_return"))
        #expect(report < returned)
        let violations = await phone.violations
        switch policy {
        case .correct: #expect(violations.isEmpty, "\(violations)")
        case .naive: #expect(violations.map(\.kind).contains(.networkingBeforeReport))
        }
        // Placeholder without INVITE, in virtual time: correct ends it (failed) at its 400 ms
        // timeout; naive does not, and CallKit's deadline (400 + 1 ms) flags it.
        let armed = policy == .correct ? 2 : 1  // the policy's placeholder timer + CallKit's deadline
        #expect(await clock.waitForSleepers(armed))
        #expect(clock.advance(by: .milliseconds(399)) == 0)  // nothing due before 400 ms
        #expect(timeline.events(named: "callkit_end").isEmpty)
        #expect(clock.advance(by: .milliseconds(1)) == (policy == .correct ? 1 : 0))
        if policy == .correct {
            #expect(await eventually { !timeline.events(named: "callkit_end").isEmpty })
            let end = try #require(timeline.events(named: "callkit_end").first)
            #expect(end.event.jsonLine(t: end.t).contains("\"reason\":\"failed\""))
        }
        #expect(clock.advance(by: .milliseconds(1)) == 1)  // CallKit's placeholder deadline
        #expect(await eventually { await phone.pendingTimers == 0 })  // every timer body has run
        let kinds = await phone.violations.map(\.kind)
        #expect(kinds.contains(.placeholderNotEnded) == (policy == .naive), "\(kinds)")
        #expect(timeline.events(named: "callkit_end").count == (policy == .correct ? 1 : 0))
        // The token was uploaded at launch, never printed in clear.
        #expect(gateway.log.all.contains { $0.line.hasPrefix("POST /api/v1/users/voip-push-token") })
        await phone.shutdown()
    }

    /// The caller left before the app woke: the ack response says so; correct ends the call
    /// (remoteEnded), naive leaves it ringing (R5 caller_left_still_ringing).
    @Test(arguments: [PolicyChoice.correct, .naive]) func ackSaysGone(policy: PolicyChoice) async throws {
        let apns = try FakeAPNs(), gateway = try FakeGateway(ackBody: "{\"call_active\":false}")
        defer { apns.stop(); gateway.stop() }
        let (phone, timeline, _) = Self.phone(policy, apns: apns, gateway: gateway)
        try await phone.setUp(app: .suspended, locked: false, online: true)
        #expect(await eventually { apns.connected })
        apns.push(pushID: "p", callID: "c")
        // The ack response is applied in one actor turn (callback, ops, R5 check): once it is on
        // the timeline the verdict is in.
        #expect(await eventually { !timeline.events(named: "ack_response").isEmpty })
        let kinds = await phone.violations.map(\.kind)
        #expect(kinds.contains(.callerLeftStillRinging) == (policy == .naive), "\(kinds)")
        if policy == .correct {
            let end = try #require(timeline.events(named: "callkit_end").first)
            #expect(end.event.jsonLine(t: end.t).contains("\"reason\":\"remoteEnded\""))
        }
        await phone.shutdown()
    }

    /// Offline: the device connection is closed (the emulator drops expiration-0 pushes); back
    /// online it reconnects and announces itself again.
    @Test func offlineClosesTheDeviceConnection() async throws {
        let apns = try FakeAPNs(), gateway = try FakeGateway()
        defer { apns.stop(); gateway.stop() }
        let (phone, _, _) = Self.phone(.correct, apns: apns, gateway: gateway)
        try await phone.setUp(app: .suspended, locked: false, online: true)
        #expect(await eventually { apns.connected })
        await phone.goOffline()
        #expect(await eventually { !apns.connected })
        #expect(!apns.push(pushID: "x", callID: "y"))
        try await phone.goOnline()
        #expect(await eventually { apns.connected })
        #expect(apns.hellos.count == 2)
        await phone.shutdown()
    }
}

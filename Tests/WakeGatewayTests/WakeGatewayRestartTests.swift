import AstraTestSupport
import Foundation
import HTTPLite
import PushKitEmu
import SIPCore
import Testing

@testable import WakeGateway

/// A gateway restarted on its SQLite state (docs/wake-gateway.md "State"): the token API's and
/// RFC 8599's registrations, the per-user push cap and the held caller's answer. Real sockets
/// (the test plays Kamailio), the emulated APNs over loopback TLS.
@Suite struct WakeGatewayRestartTests {
    typealias Proxy = WakeGatewayProxyTests
    typealias Events = WakeGatewayProviderTests.Events
    static let hex = String(repeating: "5e", count: 32)

    static func configuration(_ kamailio: Proxy.FakeKamailio) -> WakeGatewayConfiguration {
        var configuration = WakeGatewayConfiguration()
        (configuration.sipPort, configuration.httpPort, configuration.apnsDevicePort) = (0, 0, 0)
        configuration.kamailio = kamailio.udp.local
        configuration.ackWindowMs = 10_000
        configuration.providerTimeoutMs = 10_000
        configuration.auth = TestAuth.auth
        // One push per user, never refilled: the second call shows whether the bucket survived.
        configuration.pushRateLimit = PushRateLimit(burst: 1, perMinute: 0)
        return configuration
    }

    /// A replicated REGISTER for 1003 carrying RFC 8599 APNs parameters.
    static func pnRegister(_ kamailio: Proxy.FakeKamailio) -> String {
        Proxy.register(kamailio, callID: "pnreg@test").replacingOccurrences(of: "1002", with: "1003")
            .replacingOccurrences(
                of: "transport=ws>",
                with: "transport=ws;pn-provider=apns;pn-prid=\(hex);pn-param=ASTRATEAM1.com.example.astra.voip>")
    }

    @Test func registrationsTheCapAndHeldCallersSurviveARestart() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("astra-restart-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("gw.sqlite3").path
        let kamailio = try Proxy.FakeKamailio()

        // First life: a token through the API (1002), one through RFC 8599 (1003), a push to 1002
        // that takes its only token, and the call still held when the gateway stops.
        let events = Events()
        let first = try await Proxy.gateway(
            kamailio, clock: ContinuousClock(), emit: { events.add($0) },
            configure: { $0 = Self.configuration(kamailio) }, state: try SQLiteStateStore(path: path))
        try await kamailio.send(Self.pnRegister(kamailio), to: first.sipAddress.port)
        #expect(await kamailio.next { $0.response?.statusCode == 200 } != nil)
        #expect(await eventually(timeout: .seconds(15)) { await first.tokens.rfc8599["1003"] != nil })
        try await kamailio.send(Proxy.invite(kamailio), to: first.sipAddress.port)
        #expect(await eventuallySome(timeout: .seconds(15)) { events.named("push_sent").first } != nil)
        await first.stop()
        // Stopping answers the held caller: nobody is left hanging.
        let answered = await kamailio.next { $0.response?.statusCode == 503 }
        #expect(answered != nil)

        // Second life on the same file, nothing registered again.
        let again = Events()
        let second = try WakeGatewayServer(
            configuration: Self.configuration(kamailio), clock: ContinuousClock(), state: try SQLiteStateStore(path: path),
            emit: { again.add($0) })
        _ = try await second.start()
        let loaded = try #require(again.named("state_loaded").first)
        #expect(loaded["api_registrations"]?.int64Value == 1)
        #expect(loaded["rfc8599_registrations"]?.int64Value == 1)
        #expect(loaded["rate_buckets"]?.int64Value == 1)
        let status = await second.handleHTTP(
            try HTTPRequest(
                method: "GET", target: "/api/v1/users/voip-push-status?asterisk_endpoint=1002",
                headers: [HTTPHeader("Host", "h"), TestAuth.authorization("1002")]))
        #expect(status.status == 200)
        #expect(Proxy.text(status).contains(#""registered":true"#))
        #expect(await second.tokens.registration(for: "1003")?.token == Self.hex)
        #expect(await second.tokens.registration(for: "1003")?.source == .rfc8599)
        // The cap survived: 1002's next call is not pushed.
        try await kamailio.send(
            Proxy.invite(kamailio, branch: "z9hG4bK-k2").replacingOccurrences(of: "call-1@test", with: "call-2@test"),
            to: second.sipAddress.port)
        let limited = await eventuallySome(timeout: .seconds(15)) { again.named("push_limited").first }
        #expect(limited?["why"]?.stringValue == "user_rate")
        #expect(again.named("push_sent").isEmpty)
        await second.stop()
    }

    /// A store that fails a write: the phone is answered 503, never 200, and nothing is held in
    /// memory that the disk does not have.
    @Test func aFailedCommitIsNeverAcknowledged() async throws {
        let kamailio = try Proxy.FakeKamailio()
        let store = MemoryStateStore()
        let gateway = try WakeGatewayServer(
            configuration: Self.configuration(kamailio), clock: ContinuousClock(), state: store)
        _ = try await gateway.start()
        await store.close()  // every commit throws from now on
        let body =
            #"{"asterisk_endpoint":"1002","token":"\#(Self.hex)","environment":"sandbox","bundle_id":"com.example.astra","platform":"ios"}"#
        let response = await gateway.handleHTTP(
            try HTTPRequest(
                method: "POST", target: "/api/v1/users/voip-push-token",
                headers: [HTTPHeader("Host", "h"), HTTPHeader("Content-Type", "application/json"), TestAuth.authorization("1002")],
                body: Array(body.utf8)))
        #expect(response.status == 503)
        #expect(await gateway.tokens.registration(for: "1002") == nil)
        #expect(await gateway.counters["state_errors"] == 1)
        await gateway.stop()
    }
}

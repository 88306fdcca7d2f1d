import AstraTestSupport
import HTTPLite
import PushKitEmu
import SIPCore
import Synchronization
import Testing

@testable import WakeGateway

/// The gateway's push clients against its emulator over real HTTP/2 (loopback TLS), the
/// provider's answer acted on: 5xx retried, ExpiredProviderToken renewed, 410 drops the token and
/// fails the call over at once, 429 pauses the token, and every push rides one connection.
@Suite struct WakeGatewayProviderTests {
    typealias Proxy = WakeGatewayProxyTests

    final class Events: Sendable {
        let list = Mutex<[WakeEvent]>([])
        func add(_ e: WakeEvent) { list.withLock { $0.append(e) } }
        func named(_ name: String) -> [WakeEvent] { list.withLock { $0.filter { $0.name == name } } }
    }

    struct Rig {
        let kamailio: Proxy.FakeKamailio
        let gateway: WakeGatewayServer<ContinuousClock>
        let events: Events
        var emulator: ProviderEmulatorServer<ContinuousClock> { gateway.providerEmulator! }

        /// One held call for 1002 (a fresh Call-ID and branch each time), answered 100.
        func call(_ n: Int) async throws {
            let invite = Proxy.invite(kamailio, branch: "z9hG4bK-p\(n)").replacingOccurrences(
                of: "call-1@test", with: "call-\(n)@test")
            try await kamailio.send(invite, to: gateway.sipAddress.port)
        }

        func pushSent(_ n: Int) async -> WakeEvent? {
            await eventuallySome(timeout: .seconds(15)) { events.named("push_sent").count >= n ? events.named("push_sent")[n - 1] : nil }
        }

        func stop() async { await gateway.stop() }
    }

    static let ackWindowMs: Int64 = 30_000

    static func rig(token: String = String(repeating: "0a", count: 32), platform: String = "ios") async throws -> Rig {
        let kamailio = try Proxy.FakeKamailio()
        let events = Events()
        // A generous ack window (and provider timeout): a loaded CI machine can take a second for
        // a loopback TLS handshake, and the retry budget is half the ack window. "At once" is then
        // anything under half of it, far from the 30 s a failover by the ack window would take.
        let gateway = try await Proxy.gateway(
            kamailio, clock: ContinuousClock(), emit: { events.add($0) },
            configure: {
                $0.ackWindowMs = ackWindowMs
                $0.providerTimeoutMs = ackWindowMs
            }, token: token, platform: platform)
        return Rig(kamailio: kamailio, gateway: gateway, events: events)
    }

    static func string(_ event: WakeEvent?, _ key: String) -> String? { event?[key]?.stringValue }

    static func int(_ event: WakeEvent?, _ key: String) -> Int64? { event?[key]?.int64Value }

    @Test func serverErrorsAreRetriedAndOneConnectionCarriesEveryPush() async throws {
        let rig = try await Self.rig()
        await rig.emulator.injectFaults(.init(api: .apns, status: 503, reason: "ServiceUnavailable", count: 2))
        try await rig.call(1)
        let first = await rig.pushSent(1)
        #expect(Self.string(first, "apns") == "accepted", "\(String(describing: first))")
        #expect(Self.int(first, "attempts") == 3)
        #expect(Self.string(first, "provider") == "apns")
        // An unknown device (never connected): accepted by APNs and dropped (expiration 0).
        #expect(rig.events.named("provider_request").contains { Self.string($0, "delivery") == "dropped" })
        try await rig.call(2)
        try await rig.call(3)
        #expect(await rig.pushSent(3) != nil)
        // Five requests (two refused), one connection, one TLS handshake, one provider token.
        #expect(rig.gateway.providers.stats.connections == 1)
        #expect(await rig.emulator.stats()["apns_sandbox_tls_handshakes"] == 1)
        #expect(await rig.gateway.providers.apnsTokensMinted == 1)
        let stats = await rig.gateway.statsEvent()
        #expect(Self.int(stats, "provider_connections") == 1)
        await rig.stop()
    }

    @Test func expiredProviderTokenIsRenewedOnce() async throws {
        let rig = try await Self.rig()
        await rig.emulator.injectFaults(.init(api: .apns, status: 403, reason: "ExpiredProviderToken", count: 1))
        try await rig.call(1)
        let sent = await rig.pushSent(1)
        #expect(Self.string(sent, "apns") == "accepted", "\(String(describing: sent))")
        #expect(Self.int(sent, "attempts") == 2)
        #expect(await rig.gateway.providers.apnsTokensMinted == 2)
        await rig.stop()
    }

    /// A token APNs reports 410 Unregistered is dropped from the store and the call fails over at
    /// once (480 to the caller long before the ack window, within less than half of it).
    @Test func unregisteredTokenIsDroppedAndTheCallFailsOverAtOnce() async throws {
        let rig = try await Self.rig()
        await rig.emulator.injectFaults(.init(api: .apns, status: 410, reason: "Unregistered", count: 1))
        let start = ContinuousClock.now
        try await rig.call(1)
        let final = await rig.kamailio.next { $0.response?.statusCode == 480 }
        #expect(final != nil)
        #expect(ContinuousClock.now - start < .milliseconds(Self.ackWindowMs / 2), "\(ContinuousClock.now - start)")
        let dropped = try #require(rig.events.named("token_dropped").first)
        #expect(Self.string(dropped, "reason") == "Unregistered")
        #expect(Self.string(dropped, "sources") == "api")
        #expect(await rig.gateway.tokens.registration(for: "1002") == nil)
        #expect(Self.string(await rig.pushSent(1), "apns") == "rejected:Unregistered")
        await rig.stop()
    }

    @Test func tooManyRequestsPausesTheToken() async throws {
        let rig = try await Self.rig()
        await rig.emulator.injectFaults(.init(api: .apns, status: 429, reason: "TooManyRequests", count: 1))
        try await rig.call(1)
        #expect(Self.string(await rig.pushSent(1), "apns") == "rejected:TooManyRequests")
        try await rig.call(2)
        let limited = await eventuallySome(timeout: .seconds(15)) { rig.events.named("push_limited").first }
        #expect(Self.string(limited, "why") == "apns_backoff")
        await rig.stop()
    }

    /// An Android token goes through FCM HTTP v1: the OAuth2 exchange once, then messages:send; a
    /// token FCM calls UNREGISTERED is dropped.
    @Test func androidTokensGoThroughFCM() async throws {
        let fcmToken = "dFcm1234567890abcdef:APA91bHUN_android-token_0123456789"
        let rig = try await Self.rig(token: fcmToken, platform: "android")
        try await rig.call(1)
        let sent = await rig.pushSent(1)
        #expect(Self.string(sent, "provider") == "fcm", "\(String(describing: sent))")
        #expect(Self.string(sent, "fcm") == "accepted")
        #expect(Self.string(sent, "fcm_name")?.hasPrefix("projects/astra-emulator/messages/") == true)
        #expect(rig.events.named("provider_request").contains { Self.string($0, "api") == "oauth" && Self.int($0, "status") == 200 })
        await rig.emulator.injectFaults(.init(api: .fcm, status: 503, reason: "UNAVAILABLE", count: 1))
        try await rig.call(2)
        let retried = await rig.pushSent(2)
        #expect(Self.string(retried, "fcm") == "accepted")
        #expect(Self.int(retried, "attempts") == 2)
        #expect(await rig.gateway.providers.fcmAccessTokensFetched == 1)
        await rig.emulator.injectFaults(.init(api: .fcm, status: 404, reason: "UNREGISTERED", count: 1))
        try await rig.call(3)
        #expect(Self.string(await rig.pushSent(3), "fcm") == "rejected:UNREGISTERED")
        #expect(await rig.gateway.tokens.registration(for: "1002") == nil)
        // Tokens never in clear in any event.
        #expect(!rig.events.list.withLock { $0.map { "\($0)" }.joined() }.contains(fcmToken))
        await rig.stop()
    }
}

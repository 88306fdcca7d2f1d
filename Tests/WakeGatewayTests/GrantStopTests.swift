import AstraJSON
import AstraTestSupport
import Foundation
import HTTPLite
import JWT
import SIPCore
import Testing

@testable import WakeGateway

/// A phone's stop request (docs/wake-gateway.md "Stopping a gateway"): `DELETE
/// /api/v1/users/voip-push-grant?asterisk_endpoint=` with the endpoint's bearer token drops the
/// grant and the call key of its registrations, keeps its device key bound, is counted
/// `grants_stopped`, and leaves a registration that gets no push at all (not sealed, never clear)
/// until the phone gives a new grant. The stop survives a restart of the state store.
@Suite struct GrantStopTests {
    typealias Reg = SealedRegistrationTests
    typealias Phone = SealedRegistrationTests.Phone

    static func stop(_ gateway: WakeGatewayServer<TestClock>, _ endpoint: String = "1002", method: String = "DELETE") async throws
        -> HTTPResponse
    {
        await gateway.handleHTTP(
            try HTTPRequest(
                method: method, target: WakeAPIRequest.grantPath + "?asterisk_endpoint=" + endpoint,
                headers: [HTTPHeader("Host", "h"), TestAuth.authorization(endpoint)]))
    }

    @Test func aStopDropsTheGrantAndKeyAndKeepsTheDeviceKey() async throws {
        let gateway = try Reg.gateway()
        let phone = Phone()
        let grant = phone.grant()
        #expect(try await Reg.register(gateway, phone, grant: grant).status == 200)
        let stopped = try await Self.stop(gateway)
        #expect(stopped.status == 200)
        #expect(try JSONValue.parse(stopped.body) == .object(["granted": .bool(false), "stopped": .bool(true)]))
        #expect(await gateway.counters["grants_stopped"] == 1)
        #expect(await gateway.statsEvent().fields["grants_stopped"] == .int(1))
        // The registration stays, its grant and call key gone, its device key still bound.
        let sealing = try #require(await gateway.tokens.registration(for: "1002")?.sealing)
        #expect(sealing.isStopped && sealing.grant.isEmpty && sealing.callKey.isEmpty)
        #expect(sealing.deviceKey == phone.deviceKeyText)
        let status = await gateway.handleHTTP(
            try HTTPRequest(
                method: "GET", target: WakeAPIRequest.statusPath + "?asterisk_endpoint=1002",
                headers: [HTTPHeader("Host", "h"), TestAuth.authorization()]))
        #expect(try JSONValue.parse(status.body)["grant_stopped"] == .bool(true))
        #expect(!Reg.text(status).contains(grant))
        // Nothing left to stop: 404, not counted again. Another method: 405.
        #expect(try await Self.stop(gateway).status == 404)
        #expect(await gateway.counters["grants_stopped"] == 1)
        #expect(try await Self.stop(gateway, method: "POST").status == 405)
        // Another device key is still refused; a new grant by the bound key seals again.
        let other = Phone()
        #expect(try await Reg.register(gateway, other, grant: other.grant()).status == 403)
        #expect(try await Reg.register(gateway, phone, grant: phone.grant()).status == 200)
        #expect(await gateway.tokens.registration(for: "1002")?.sealing?.isStopped == false)
        #expect(await gateway.tokens.registration(for: "1002")?.sealing?.callKey == phone.callKey)
    }

    /// A stop for an endpoint with no grant (a clear registration, or none) is 404 and changes nothing.
    @Test func aStopWithoutAGrantIs404() async throws {
        let gateway = try Reg.gateway()
        #expect(try await Self.stop(gateway).status == 404)
        #expect(try await Reg.register(gateway, Reg.body(deviceKey: nil, grant: nil, callKey: nil)).status == 200)
        #expect(try await Self.stop(gateway).status == 404)
        #expect(await gateway.tokens.registration(for: "1002")?.sealing == nil)
        #expect(await gateway.counters["grants_stopped"] == nil)
    }

    /// The stopped registration is pushed neither sealed nor clear: the call fails over,
    /// counted `push_refused_grant_stopped`, and the provider sees nothing.
    @Test func aStoppedRegistrationGetsNoPush() async throws {
        let rig = try await SealedPushTests.Rig.make()
        defer { rig.remove() }
        let response = await rig.gateway.handleHTTP(
            try HTTPRequest(
                method: "DELETE", target: WakeAPIRequest.grantPath + "?asterisk_endpoint=1002",
                headers: [HTTPHeader("Host", "h"), TestAuth.authorization("1002")]))
        #expect(response.status == 200)
        #expect(try await rig.gateway.pushForTest(user: "1002", callID: "c-stopped", from: "<sip:1001@h>;tag=t") == false)
        #expect(await rig.gateway.counters["push_refused_grant_stopped"] == 1)
        #expect(try await rig.gateway.pushForTest(user: "1003", callID: "c-sealed", from: "<sip:1001@h>;tag=t"))
        await rig.gateway.stop()
        let lines = try rig.lines()
        #expect(lines.count == 1)
        #expect(lines.first?.contains("c-sealed") == true)
    }

    /// A stopped sealing is kept as such (device key, no grant, no key): read back it is stopped,
    /// not a clear registration.
    @Test func aStopIsDurable() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("astra-stop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("s.sqlite3").path
        var registration = StateStoreTests.registration("1002")
        registration.sealing = StateStoreTests.sealing.stopped
        let store = try SQLiteStateStore(path: path)
        try await store.commit([.saveRegistration(registration)])
        await store.close()
        let reopened = try SQLiteStateStore(path: path)
        let loaded = try #require(try await reopened.load().registrations.first)
        await reopened.close()
        #expect(loaded.sealing?.isStopped == true)
        #expect(loaded.sealing?.deviceKey == StateStoreTests.sealing.deviceKey)
        #expect(PushSealing.stored(deviceKey: nil, grant: nil, callKey: nil, grantExpiresAt: nil) == nil)
    }
}

import AstraTestSupport
import HTTPLite
import PushKitEmu
import Testing

@testable import WakeGateway

/// The gateway's APNs emulator on its device port (real loopback TCP): token rotation. A device
/// hello with `replaces` retires the old token, so a provider that still pushes to it gets
/// 410 `Unregistered`, as APNs answers for a token PushKit rotated away; the new token delivers.
@Suite struct APNsEmulatorTests {
    static let oldToken = String(repeating: "0a", count: 32)
    static let newToken = String(repeating: "0b", count: 32)

    static func voipRequest() -> APNsRequest {
        var request = APNsRequest()
        request.topic = "com.example.astra.voip"
        request.expirationSeconds = 0
        request.priority = 10
        request.pushType = "voip"
        return request
    }

    @Test func helloReplacesIsParsedAndChecked() {
        let good = APNsEmulator<ContinuousClock>.parseHello(
            Array(
                #"{"token":"\#(Self.newToken)","topic":"com.example.astra.voip","environment":"sandbox","replaces":"\#(Self.oldToken)"}"#
                    .utf8))
        guard case .success(let hello) = good else {
            Issue.record("\(good)")
            return
        }
        #expect(hello.token == Self.newToken && hello.replaces == Self.oldToken)
        let bad = APNsEmulator<ContinuousClock>.parseHello(
            Array(
                #"{"token":"\#(Self.newToken)","topic":"com.example.astra.voip","environment":"sandbox","replaces":"xyz"}"#
                    .utf8))
        guard case .failure(let error) = bad else {
            Issue.record("a bad replaces was accepted")
            return
        }
        #expect(error.message.hasPrefix("replaces must be a token"))
    }

    @Test func rotatedTokenIsRetiredWith410() async throws {
        let apns = try APNsEmulator(clock: ContinuousClock())
        await apns.startAccepting()
        defer { Task { await apns.stop() } }
        func hello(_ token: String, replaces: String? = nil) async throws -> TCPConnection {
            let connection = try TCPConnection.connect(host: "127.0.0.1", port: apns.devicePort)
            let extra = replaces.map { #","replaces":"\#($0)""# } ?? ""
            let line = #"{"token":"\#(token)","topic":"com.example.astra.voip","environment":"sandbox"\#(extra)}"#
            #expect(await connection.write(Array((line + "\n").utf8)))
            return connection
        }
        let first = try await hello(Self.oldToken)
        #expect(await eventually { await apns.isOnline(Self.oldToken) })
        let payload = #"{"push_id":"p-1","aps":{}}"#
        let before = await apns.send(
            token: Self.oldToken, environment: .sandbox, request: Self.voipRequest(), payload: payload)
        guard case .delivered = before else {
            Issue.record("before the rotation: \(before)")
            return
        }
        let second = try await hello(Self.newToken, replaces: Self.oldToken)
        defer {
            first.close()
            second.close()
        }
        #expect(await eventually { await apns.isOnline(Self.newToken) })
        #expect(await apns.isOnline(Self.oldToken) == false)
        let stale = await apns.send(
            token: Self.oldToken, environment: .sandbox, request: Self.voipRequest(), payload: payload)
        #expect(stale == .rejected(.unregistered))
        let fresh = await apns.send(
            token: Self.newToken, environment: .sandbox, request: Self.voipRequest(), payload: payload)
        guard case .delivered = fresh else {
            Issue.record("the new token: \(fresh)")
            return
        }
    }
}

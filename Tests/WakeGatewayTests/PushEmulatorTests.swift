import AstraTestSupport
import HTTPLite
import PushKitEmu
import Testing

@testable import WakeGateway

/// The emulated push services' device side on its port (real loopback TCP): hellos of both
/// platforms, and token rotation — a hello with `replaces` retires the old token, so a provider
/// that still pushes to it gets 410 `Unregistered` with the time it was retired (APNs) or
/// UNREGISTERED (FCM); the new token delivers.
@Suite struct PushEmulatorTests {
    static let oldToken = String(repeating: "0a", count: 32)
    static let newToken = String(repeating: "0b", count: 32)
    static let fcmOld = "dOLD1234567890abc:APA91bHUNOLD_token-0123456789"
    static let fcmNew = "dNEW1234567890abc:APA91bHUNNEW_token-0123456789"

    static func submission(_ token: String) -> APNsSubmission {
        APNsSubmission(
            token: token, topic: "com.example.astra.voip", pushType: "voip", priority: 10, expiration: 0, apnsID: nil,
            collapseID: nil, payload: Array(#"{"push_id":"p-1","aps":{}}"#.utf8))
    }

    @Test func hellosAreParsedAndChecked() {
        typealias E = PushEmulator<ContinuousClock>
        let good = E.parseHello(
            Array(
                #"{"token":"\#(Self.newToken)","topic":"com.example.astra.voip","environment":"sandbox","replaces":"\#(Self.oldToken)"}"#
                    .utf8))
        guard case .success(let hello) = good else {
            Issue.record("\(good)")
            return
        }
        #expect(hello.token == Self.newToken && hello.replaces == Self.oldToken && hello.platform == .ios)
        let bad = E.parseHello(
            Array(
                #"{"token":"\#(Self.newToken)","topic":"com.example.astra.voip","environment":"sandbox","replaces":"xyz"}"#
                    .utf8))
        guard case .failure(let error) = bad else {
            Issue.record("a bad replaces was accepted")
            return
        }
        #expect(error.message.hasPrefix("replaces must be a token"))
        let android = E.parseHello(
            Array(
                #"{"platform":"android","token":"\#(Self.fcmNew)","package":"com.example.astra","project_id":"astra-emulator"}"#
                    .utf8))
        guard case .success(let a) = android else {
            Issue.record("\(android)")
            return
        }
        // FCM tokens keep their case (they are not hex).
        #expect(a.platform == .android && a.token == Self.fcmNew && a.project == "astra-emulator")
        for (line, message) in [
            (#"{"platform":"android","token":"short","package":"p","project_id":"x"}"#, "token must be an FCM"),
            (#"{"platform":"android","token":"\#(Self.fcmNew)","project_id":"x"}"#, "package must be"),
            (#"{"platform":"android","token":"\#(Self.fcmNew)","package":"p"}"#, "project_id must be"),
            (#"{"platform":"windows","token":"\#(Self.newToken)"}"#, "platform must be"),
        ] {
            guard case .failure(let error) = E.parseHello(Array(line.utf8)) else {
                Issue.record("accepted \(line)")
                continue
            }
            #expect(error.message.hasPrefix(message), "\(error.message)")
        }
    }

    static func connect(_ emulator: PushEmulator<ContinuousClock>, _ hello: String) async throws -> TCPConnection {
        let connection = try TCPConnection.connect(host: "127.0.0.1", port: emulator.devicePort)
        #expect(await connection.write(Array((hello + "\n").utf8)))
        return connection
    }

    @Test func rotatedAPNsTokenIsRetiredWith410AndTimestamp() async throws {
        let devices = try PushEmulator(clock: ContinuousClock())
        await devices.startAccepting()
        defer { Task { await devices.stop() } }
        let ios = #""topic":"com.example.astra.voip","environment":"sandbox""#
        let first = try await Self.connect(devices, #"{"token":"\#(Self.oldToken)",\#(ios)}"#)
        #expect(await eventually { await devices.isOnline(Self.oldToken) })
        guard case .accepted(_, .delivered) = await devices.submitAPNs(Self.submission(Self.oldToken), environment: .sandbox)
        else {
            Issue.record("before the rotation: not delivered")
            return
        }
        // The wrong environment and another app's topic are the token's own problems.
        #expect(await devices.submitAPNs(Self.submission(Self.oldToken), environment: .production) == .refused(.badDeviceToken, timestampMs: nil))
        var other = Self.submission(Self.oldToken)
        other.topic = "com.other.app.voip"
        #expect(await devices.submitAPNs(other, environment: .sandbox) == .refused(.deviceTokenNotForTopic, timestampMs: nil))
        let before = WallClock.nowMs()
        let second = try await Self.connect(devices, #"{"token":"\#(Self.newToken)",\#(ios),"replaces":"\#(Self.oldToken)"}"#)
        defer {
            first.close()
            second.close()
        }
        #expect(await eventually { await devices.isOnline(Self.newToken) })
        #expect(await devices.isOnline(Self.oldToken) == false)
        guard case .refused(.unregistered, let since?) = await devices.submitAPNs(Self.submission(Self.oldToken), environment: .sandbox)
        else {
            Issue.record("the retired token was not refused 410 with a timestamp")
            return
        }
        #expect(since >= before && since <= WallClock.nowMs())
        guard case .accepted(_, .delivered) = await devices.submitAPNs(Self.submission(Self.newToken), environment: .sandbox)
        else {
            Issue.record("the new token was not delivered")
            return
        }
        // A token never seen is an offline device: accepted, and dropped (expiration 0).
        let unknown = String(repeating: "0c", count: 32)
        guard case .accepted(_, .dropped) = await devices.submitAPNs(Self.submission(unknown), environment: .sandbox) else {
            Issue.record("an unknown token was not dropped")
            return
        }
    }

    @Test func fcmTokensRotateAndBelongToOneProject() async throws {
        let devices = try PushEmulator(clock: ContinuousClock())
        await devices.startAccepting()
        defer { Task { await devices.stop() } }
        let android = #""platform":"android","package":"com.example.astra","project_id":"astra-emulator""#
        let first = try await Self.connect(devices, #"{"token":"\#(Self.fcmOld)",\#(android)}"#)
        defer { first.close() }
        #expect(await eventually { await devices.isOnline(Self.fcmOld) })
        func message(_ token: String, project: String = "astra-emulator") -> FCMSubmission {
            FCMSubmission(
                token: token, project: project, data: .object(["push_id": .string("p")]), priority: "high",
                ttlSeconds: 0)
        }
        guard case .accepted(let name, .delivered) = await devices.submitFCM(message(Self.fcmOld)) else {
            Issue.record("not delivered")
            return
        }
        #expect(name.hasPrefix("projects/astra-emulator/messages/"))
        #expect(await devices.submitFCM(message(Self.fcmOld, project: "other-project")) == .refused(.senderIDMismatch))
        let second = try await Self.connect(devices, #"{"token":"\#(Self.fcmNew)",\#(android),"replaces":"\#(Self.fcmOld)"}"#)
        defer { second.close() }
        #expect(await eventually { await devices.isOnline(Self.fcmNew) })
        #expect(await devices.submitFCM(message(Self.fcmOld)) == .refused(.unregistered))
        // An APNs push to an FCM token is nobody's token.
        #expect(await devices.submitAPNs(Self.submission(String(repeating: "0d", count: 32)), environment: .sandbox) != .refused(.unregistered, timestampMs: nil))
    }
}

import AstraJSON
import AstraTestSupport
import Foundation
import HTTPLite
import JWT
import SIPCore
import SIPTransport
import Testing

@testable import WakeGateway

/// Sealed push, what the providers see (docs/wake-gateway.md "Sealed push", ADR 0150–0152): the
/// gateway's pushes through its provider emulator over real HTTP/2, every accepted request in the
/// `--provider-capture` file. No caller's URI, user (a number) or display name in any captured
/// body or header, nor in any event; every sealed body the same length; every blob opens for its
/// call and for nothing changed. No secret or caller goes into a test argument or a message.
@Suite(.timeLimit(.minutes(3))) struct SealedPushTests {
    typealias Proxy = WakeGatewayProxyTests
    typealias Events = WakeGatewayProviderTests.Events
    typealias Phone = SealedRegistrationTests.Phone

    static let iosToken = String(repeating: "7c", count: 32)
    static let fcmToken = "dSealed0123456789abcdef:APA91bHUN_sealed-token_0123456789"
    /// A second phone of each platform with a token of another length (the longest an FCM token
    /// may be, 512): the length of what a provider receives must not tell the phones apart.
    static let iosToken2 = String(repeating: "a5", count: 100)
    static let fcmToken2 = "eLong:" + String(repeating: "APA91b_x-", count: 56)
    /// The four sealed phones, the user a push `i` goes to: `i % 4`.
    static let users = ["1002", "1003", "1004", "1005"]
    static let tokens = [iosToken, fcmToken, iosToken2, fcmToken2]

    /// A Call-ID of 10 to about 530 bytes (word characters and `@`, as SIP allows), unique.
    static func callID(_ i: Int) -> String {
        let random = SecureBytes.hex(KeyMaterial.bytes(4 + (i * 37) % 200))
        return i % 3 == 0 ? "\(random)@host-\(i).example" : "\(i)-" + random
    }

    /// What no capture line and no event may hold: every caller below has `+447700` in its user
    /// (a character base64url and hex never use), `hospital.example` in its URI and `Patient` in
    /// its display name.
    static let callerFragments = ["+447700", "hospital.example", "Patient", "Ward "]

    static func caller(_ i: Int) -> (uri: String, user: String, name: String) {
        let user = "+447700" + String(900_000 + i)
        return ("sip:\(user)@ward\(i % 9).hospital.example", user, "Patient \(i) Ward \(i % 9)")
    }

    struct Rig {
        let gateway: WakeGatewayServer<ContinuousClock>
        let events: Events
        let capture: URL
        let ios = Phone()
        let android = Phone()
        let ios2 = Phone()
        let android2 = Phone()
        /// The phone of ``SealedPushTests/users`` `[n]`.
        var phones: [Phone] { [ios, android, ios2, android2] }

        static func make(sealed: SealedMode = .optional, sealIOS: Bool = true, kamailio: Proxy.FakeKamailio? = nil)
            async throws -> Rig
        {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("astra-sealed-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            var configuration = WakeGatewayConfiguration()
            (configuration.sipPort, configuration.httpPort, configuration.apnsDevicePort) = (0, 0, 0)
            if let kamailio { configuration.kamailio = kamailio.udp.local }
            configuration.auth = TestAuth.auth
            configuration.ackWindowMs = 10_000
            configuration.providerTimeoutMs = 10_000
            configuration.sealed = sealed
            configuration.pushRateLimit = PushRateLimit(burst: 1_000, perMinute: 60_000)
            configuration.providerCapture = dir.appendingPathComponent("capture.jsonl").path
            let events = Events()
            let gateway = try WakeGatewayServer(
                configuration: configuration, clock: ContinuousClock(), emit: { events.add($0) })
            _ = try await gateway.start()
            // The emulated APNs's per-token 429 model would stop one phone's 5,000 pushes.
            await gateway.devices?.setDeviceRateLimit(1_000_000)
            let rig = Rig(gateway: gateway, events: events, capture: URL(fileURLWithPath: configuration.providerCapture!))
            try await rig.register("1002", token: SealedPushTests.iosToken, platform: "ios", phone: sealIOS ? rig.ios : nil)
            try await rig.register("1003", token: SealedPushTests.fcmToken, platform: "android", phone: rig.android)
            try await rig.register("1004", token: SealedPushTests.iosToken2, platform: "ios", phone: rig.ios2)
            try await rig.register("1005", token: SealedPushTests.fcmToken2, platform: "android", phone: rig.android2)
            return rig
        }

        func register(_ user: String, token: String, platform: String, phone: Phone?) async throws {
            var body: JSONObject = [
                "asterisk_endpoint": .string(user), "token": .string(token), "environment": "sandbox",
                "bundle_id": "com.example.astra", "platform": .string(platform),
            ]
            if let phone {
                body["device_key"] = .string(phone.deviceKeyText)
                body["grant"] = .string(phone.grant(endpoint: user))
                body["call_key"] = .string(Base64URL.encode(phone.callKey))
            }
            let response = await gateway.handleHTTP(
                try HTTPRequest(
                    method: "POST", target: WakeAPIRequest.tokenPath,
                    headers: [HTTPHeader("Host", "h"), TestAuth.authorization(user, role: "org_admin")],
                    body: Array(JSONValue.object(body).jsonText.utf8)))
            #expect(response.status == 200)
        }

        func lines() throws -> [String] {
            try String(contentsOf: capture, encoding: .utf8).split(separator: "\n").map(String.init)
        }

        func remove() { try? FileManager.default.removeItem(at: capture.deletingLastPathComponent()) }
    }

    /// 10,000 sealed pushes (half APNs, half FCM, two phones each with tokens of different
    /// lengths, Call-IDs of 10 to 530 bytes, callers of different lengths) through the gateway's
    /// push path and the emulator: the capture shows nothing of any caller; every body is the one
    /// length of its provider (``WakePushPayload/apnsSealedBytes``, ``WakePushPayload/fcmSealedBytes``),
    /// as sent (`bytes`); every blob opens for its call only.
    @Test func tenThousandSealedPushesShowTheProvidersNoCaller() async throws {
        let rig = try await Rig.make()
        defer { rig.remove() }
        let total = 10_000
        let callIDs = (0..<total).map(Self.callID)
        // Each push's end time lies after the moment it was sealed; on a busy CPU the whole run
        // can outlast an early push's end, so the check is against the run's start, not "now".
        let startedMs = WallClock.nowMs()
        try await withThrowingTaskGroup(of: Void.self) { group in
            let lanes = 16
            for lane in 0..<lanes {
                group.addTask {
                    for i in stride(from: lane, to: total, by: lanes) {
                        let c = SealedPushTests.caller(i)
                        let accepted = try await rig.gateway.pushForTest(
                            user: SealedPushTests.users[i % 4], callID: callIDs[i],
                            from: "\"\(c.name)\" <\(c.uri)>;tag=t\(i)")
                        #expect(accepted, "push \(i)")
                    }
                }
            }
            try await group.waitForAll()
        }
        await rig.gateway.stop()
        #expect(await rig.gateway.counters["pushes_sealed"] == total)
        #expect(await rig.gateway.counters["pushes_clear"] == nil)

        let lines = try rig.lines()
        // A push the client retried (an answer lost under load) is captured each time it was sent.
        #expect(lines.count >= total && lines.count < total + 100)
        let whole = lines.joined(separator: "\n")
        for fragment in Self.callerFragments { #expect(!whole.contains(fragment)) }
        for token in Self.tokens { #expect(!whole.contains(token)) }
        let events = rig.events.list.withLock { $0.map { $0.fields.jsonText }.joined(separator: "\n") }
        for fragment in Self.callerFragments { #expect(!events.contains(fragment)) }

        var bodyLengths: [String: Set<Int>] = [:]
        var opened = 0
        var seen = Set<String>()
        var refused = [0, 0, 0, 0]
        let index = Dictionary(uniqueKeysWithValues: callIDs.enumerated().map { ($1, $0) })
        for line in lines {
            let json = try JSONValue.parse(line)
            let provider = try #require(json["provider"]?.stringValue)
            let bodyText = try #require(json["body"]?.stringValue)
            let bytes = try #require(json["bytes"]?.intValue)
            bodyLengths[provider, default: []].insert(Int(bytes))
            // The capture redacts the FCM token only: an APNs body is as it was sent.
            if provider == "apns" { #expect(bodyText.utf8.count == bytes) }
            #expect(json["headers"]?["authorization"]?.stringValue?.contains(Redaction.placeholder) == true)
            let body = try JSONValue.parse(bodyText)
            let data = provider == "fcm" ? try #require(body["message"]?["data"]) : body
            #expect(data["caller"] == nil)
            let callID = try #require(data["call_id"]?.stringValue)
            let i = try #require(index[callID])
            seen.insert(callID)
            let phone = rig.phones[i % 4]
            #expect((provider == "apns") == (i % 2 == 0))
            #expect(data["gw"]?.stringValue == CallSeal.gatewayHash(key: phone.callKey, gatewayID: "astra-wakegw"))
            let c = Self.caller(i)
            for own in [c.uri, c.user, c.name] { #expect(!line.contains(own)) }
            let blobText = try #require(data["caller_blob"]?.stringValue)
            let blob = try #require(Base64URL.decode(blobText))
            #expect(blob.count == CallSeal.blobBytes)
            let plain = try CallSeal.open(blob, key: phone.callKey, callID: callID)
            let sealed = try #require(SealedCaller(plaintext: plain))
            #expect(sealed.uri == c.uri && sealed.user == c.user && sealed.name == c.name)
            #expect(sealed.endMs > startedMs)
            opened += 1
            // Changed call ID, ciphertext, tag, key: none opens.
            var body2 = blob
            body2[CallSeal.nonceBytes + (i % CallSeal.paddedBytes)] ^= 0x01
            var tag = blob
            tag[blob.count - 1 - (i % CallSeal.tagBytes)] ^= 0x80
            var key = phone.callKey
            key[i % CallSeal.keyBytes] ^= 0x01
            let otherID = callIDs[(i + 1) % total]
            let tampered = [
                Self.refuses(blob, phone.callKey, otherID), Self.refuses(body2, phone.callKey, callID),
                Self.refuses(tag, phone.callKey, callID), Self.refuses(blob, key, callID),
            ]
            for (n, refusedNow) in tampered.enumerated() where refusedNow { refused[n] += 1 }
        }
        #expect(seen.count == total)
        #expect(opened == lines.count)
        #expect(refused == [opened, opened, opened, opened])
        #expect(bodyLengths["apns"]?.count == 1)
        #expect(bodyLengths["fcm"]?.count == 1)
        #expect(bodyLengths["apns"] == [WakePushPayload.apnsSealedBytes])
        #expect(bodyLengths["fcm"] == [WakePushPayload.fcmSealedBytes])
        #expect(WakePushPayload.apnsSealedBytes <= 5_120 && WakePushPayload.fcmSealedBytes <= 4_096)
    }

    /// Whether `blob` fails to open with `key` for `callID`, with the one error for every change.
    static func refuses(_ blob: [UInt8], _ key: [UInt8], _ callID: String) -> Bool {
        do {
            _ = try CallSeal.open(blob, key: key, callID: callID)
            return false
        } catch {
            return error == .unopenable
        }
    }

    /// A call through SIP to a sealed registration: `call_held` and every other event name no
    /// caller; the one captured push is sealed. To a clear registration (`--sealed optional`):
    /// the caller is in the push, as before, and counted `pushes_clear`.
    @Test func aSealedCallOverSIPNamesTheCallerNowhere() async throws {
        let kamailio = try Proxy.FakeKamailio()
        let rig = try await Rig.make(kamailio: kamailio)
        defer { rig.remove() }
        let c = Self.caller(7)
        let invite = Proxy.invite(kamailio).replacingOccurrences(
            of: "From: <sip:1001@127.0.0.1>;tag=c1", with: "From: \"\(c.name)\" <\(c.uri)>;tag=c1")
        try await kamailio.send(invite, to: rig.gateway.sipAddress.port)
        #expect(await eventually(timeout: .seconds(15)) { rig.events.named("push_sent").count == 1 })
        let held = try #require(rig.events.named("call_held").first)
        #expect(held.fields["sealed"] == .bool(true))
        #expect(held.fields["caller"] == nil)
        await rig.gateway.stop()
        let events = rig.events.list.withLock { $0.map { $0.fields.jsonText }.joined(separator: "\n") }
        let lines = try rig.lines()
        #expect(lines.count == 1)
        for fragment in Self.callerFragments {
            #expect(!events.contains(fragment))
            #expect(!lines.joined().contains(fragment))
        }
        #expect(lines.first?.contains("caller_blob") == true)
    }

    @Test func aClearRegistrationStillGetsTheCallerInClear() async throws {
        let kamailio = try Proxy.FakeKamailio()
        let rig = try await Rig.make(sealIOS: false, kamailio: kamailio)
        defer { rig.remove() }
        try await kamailio.send(Proxy.invite(kamailio), to: rig.gateway.sipAddress.port)
        #expect(await eventually(timeout: .seconds(15)) { rig.events.named("push_sent").count == 1 })
        #expect(rig.events.named("call_held").first?.fields["caller"] == .string("1001"))
        await rig.gateway.stop()
        #expect(await rig.gateway.counters["pushes_clear"] == 1)
        let line = try #require(try rig.lines().first)
        let bodyText = try #require(try JSONValue.parse(line)["body"]?.stringValue)
        let body = try JSONValue.parse(bodyText)
        #expect(body["caller"] == .string("1001"))
    }

    /// `--sealed required`: a registration without a call key (held from before, or restored)
    /// is never pushed in clear — the push is refused and counted, the call fails over.
    @Test func requiredNeverPushesInClear() async throws {
        let rig = try await Rig.make(sealed: .optional, sealIOS: false)
        defer { rig.remove() }
        let required = try await Rig.make(sealed: .required)
        defer { required.remove() }
        await required.gateway.restoreForTest(await rig.gateway.tokens.registration(for: "1002")!)
        #expect(try await required.gateway.pushForTest(user: "1002", callID: "c-req", from: "<sip:1001@h>;tag=t") == false)
        #expect(await required.gateway.counters["push_refused_not_sealed"] == 1)
        await rig.gateway.stop()
        await required.gateway.stop()
        #expect(try required.lines().isEmpty)
    }

    /// A Call-ID over the room the one length leaves (``WakePushPayload/callIDRoom``): the sealed
    /// push is not sent (it would be longer than every other), counted, and nothing is captured.
    @Test func aCallIDTooLongForTheOneLengthIsNotPushed() async throws {
        let rig = try await Rig.make()
        defer { rig.remove() }
        let long = String(repeating: "c", count: 3_000)
        #expect(try await rig.gateway.pushForTest(user: "1002", callID: long, from: "<sip:1001@h>;tag=t") == false)
        #expect(try await rig.gateway.pushForTest(user: "1003", callID: long + "x", from: "<sip:1001@h>;tag=t") == false)
        #expect(await rig.gateway.counters["push_refused_call_id_too_long"] == 2)
        #expect(try await rig.gateway.pushForTest(user: "1003", callID: "short@h", from: "<sip:1001@h>;tag=t"))
        await rig.gateway.stop()
        #expect(try rig.lines().count == 1)
    }

    /// RFC 8599: a REGISTER whose Contact carries `pn-astra-*` makes a sealed registration; one
    /// whose grant is refused is counted and not taken.
    @Test func anRFC8599RegisterCarriesTheSealing() async throws {
        let kamailio = try Proxy.FakeKamailio()
        let rig = try await Rig.make(kamailio: kamailio)
        defer { rig.remove() }
        let phone = Phone()
        func register(_ grant: String, _ n: Int) -> String {
            Proxy.register(kamailio, callID: "pn\(n)reg@test").replacingOccurrences(of: "1002", with: "1009")
                .replacingOccurrences(
                    of: "transport=ws>",
                    with:
                        "transport=ws;pn-provider=apns;pn-prid=\(Self.iosToken);pn-param=ASTRATEAM1.com.example.astra.voip;"
                        + "\(SealingOffer.pnDeviceKey)=\(phone.deviceKeyText);\(SealingOffer.pnGrant)=\(grant);"
                        + "\(SealingOffer.pnCallKey)=\(Base64URL.encode(phone.callKey))>")
        }
        try await kamailio.send(register(phone.grant(gateway: "gw_other", endpoint: "1009"), 1), to: rig.gateway.sipAddress.port)
        #expect(await eventually(timeout: .seconds(15)) { await rig.gateway.counters["grants_refused_other_gateway"] == 1 })
        // The phone's grant for its line 1002 does not make 1009 a sealed registration.
        try await kamailio.send(register(phone.grant(endpoint: "1002"), 3), to: rig.gateway.sipAddress.port)
        #expect(await eventually(timeout: .seconds(15)) { await rig.gateway.counters["grants_refused_other_endpoint"] == 1 })
        #expect(await rig.gateway.tokens.rfc8599["1009"] == nil)
        try await kamailio.send(register(phone.grant(endpoint: "1009"), 2), to: rig.gateway.sipAddress.port)
        #expect(await eventually(timeout: .seconds(15)) { await rig.gateway.tokens.rfc8599["1009"] != nil })
        #expect(await rig.gateway.tokens.rfc8599["1009"]?.sealing?.callKey == phone.callKey)
        await rig.gateway.stop()
    }
}

extension WakeGatewayServer {
    /// One push for a call that did not come over SIP (the 10,000-push test): a held call made
    /// from `from` (the From header value) and `callID`, pushed through ``push(_:)`` and the
    /// provider exchange, then forgotten. True when the provider accepted it.
    func pushForTest(user: String, callID: String, from: String) async throws -> Bool {
        let text = """
            INVITE sip:\(user)@127.0.0.1 SIP/2.0\r
            Via: SIP/2.0/UDP 127.0.0.1:5060;branch=z9hG4bK-\(callID)\r
            Max-Forwards: 69\r
            From: \(from)\r
            To: <sip:\(user)@127.0.0.1>\r
            Call-ID: \(callID)\r
            CSeq: 1 INVITE\r
            Content-Length: 0\r
            \r

            """
        let invite = try #require(try SIPMessage(parsing: text).request)
        nextCall += 1
        let id = nextCall
        calls[id] = HeldCall(
            id: id, user: user, domain: "127.0.0.1", caller: (try? invite.headers.from())?.uri.user ?? "", callID: callID,
            invite: invite, upstream: SocketAddress(ip: "127.0.0.1", port: 5060)!, upstreamBranch: "b-" + callID,
            toTag: "t", arrivedMs: nowMs, machine: Machine(settings: machineSettings))
        defer { calls[id] = nil }
        guard push(id) == nil, let task = pushTasks[id] else { return false }
        await task.value
        let sent = counters["push_failed"] == nil && counters["tokens_dropped"] == nil
        if let pushID = calls[id]?.pushID { grants.revoke(pushID) }
        return sent
    }

    /// A registration put in the working copy as if loaded from the state store.
    func restoreForTest(_ registration: PushRegistration) { store.restore(registration) }
}

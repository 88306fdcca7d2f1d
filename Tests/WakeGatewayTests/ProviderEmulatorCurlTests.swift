import AstraTestSupport
import Foundation
import HTTP2
import HTTPLite
import JWT
import PushKitEmu
import Testing

@testable import WakeGateway

/// The emulator's provider APIs against independent clients (issue "Must show"): `curl --http2`
/// and `nghttp` (nghttp2-client) with provider tokens minted by scripts/mint-jwt.py from keys made
/// by `openssl` — nothing of AstraSIP on the client side. A valid VoIP push gets 200 and an
/// `apns-id` and reaches the phone's device connection; a wrong topic, a bad token, an expired JWT
/// and an oversize payload get Apple's status and reason JSON. FCM HTTP v1 likewise, through its
/// OAuth2 token endpoint.
@Suite struct ProviderEmulatorCurlTests {
    static let teamID = "DEF123GHIJ"
    static let keyID = "ABC123DEFG"
    static let token = String(repeating: "5a", count: 32)
    static let fcmToken = "dCurl1234567890abc:APA91bHUNcurl_token-0123456789"

    struct Rig {
        let keys: IndependentJWT
        let devices: PushEmulator<ContinuousClock>
        let emulator: ProviderEmulatorServer<ContinuousClock>
        let ca: URL
        let events: Events
        var apnsURL: String { emulator.apnsSandboxURL }

        func stop() async {
            await emulator.stop()
            await devices.stop()
            keys.remove()
            try? FileManager.default.removeItem(at: ca)
        }
    }

    final class Events: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [WakeEvent] = []
        func add(_ e: WakeEvent) { lock.withLock { list.append(e) } }
        var all: [WakeEvent] { lock.withLock { list } }
    }

    static func rig() async throws -> Rig {
        let keys = try await IndependentJWT.make()
        let events = Events()
        let devices = try PushEmulator(clock: ContinuousClock(), emit: { events.add($0) })
        await devices.startAccepting()
        let rsaPEM = try String(contentsOfFile: keys.rsaPrivate, encoding: .utf8)
        let emulator = try ProviderEmulatorServer(
            identity: try TLSServerIdentity.ephemeral(), teamID: teamID,
            apnsKeys: [try JWTKey.publicKey(file: keys.ecPublic).identified(as: keyID)],
            fcmAccount: { port throws(WakeGatewayError) -> FCMServiceAccount in
                do {
                    return try FCMServiceAccount.parse(
                        Array(
                            FCMServiceAccount.json(
                                projectID: "astra-curl", clientEmail: "curl@astra-curl.iam.gserviceaccount.com",
                                tokenURI: "https://127.0.0.1:\(port)/token", keyID: "curl-key-1", privateKeyPEM: rsaPEM
                            ).utf8))
                } catch { throw WakeGatewayError("\(error)") }
            }, devices: devices, emit: { events.add($0) })
        await emulator.start()
        let ca = FileManager.default.temporaryDirectory.appendingPathComponent("astra-emu-\(UInt64.random(in: 0...UInt64.max)).pem")
        try Data(emulator.certificatePEM).write(to: ca)
        return Rig(keys: keys, devices: devices, emulator: emulator, ca: ca, events: events)
    }

    /// A provider token as Apple wants it, minted independently: ES256, `kid`, `iss`, `iat`.
    static func providerToken(_ rig: Rig, iat: Int64 = Int64(Date().timeIntervalSince1970), keyFile: String? = nil)
        async throws -> String
    {
        try await rig.keys.mint(
            "ES256", claims: #"{"iss":"\#(teamID)","iat":\#(iat)}"#, header: #"{"alg":"ES256","kid":"\#(keyID)"}"#,
            keyFile: keyFile)
    }

    struct Answer {
        var status: Int
        var headers: [String: String]
        var body: String
        var version: String
    }

    /// `curl --http2 -si`: the status line, headers and body of one request.
    static func curl(_ rig: Rig, _ url: String, headers: [String], body: String) async throws -> Answer {
        var arguments = ["-sS", "-i", "--http2", "--cacert", rig.ca.path]
        for header in headers { arguments += ["-H", header] }
        arguments += ["--data-binary", body, url]
        let result = try await ChildProcess.run(command: "curl", arguments)
        #expect(result.status == 0, "curl: \(result.stderr)")
        let text = result.text.replacingOccurrences(of: "\r\n", with: "\n")
        let parts = text.components(separatedBy: "\n\n")
        let head = parts.first?.split(separator: "\n") ?? []
        let statusLine = head.first.map(String.init) ?? ""
        var fields: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let words = statusLine.split(separator: " ")
        return Answer(
            status: words.count > 1 ? Int(words[1]) ?? 0 : 0, headers: fields,
            body: parts.dropFirst().joined(separator: "\n\n"), version: words.first.map(String.init) ?? "")
    }

    static func voipHeaders(_ bearer: String?, topic: String = "com.example.astra.voip") -> [String] {
        (bearer.map { ["authorization: bearer \($0)"] } ?? []) + [
            "apns-push-type: voip", "apns-topic: \(topic)", "apns-priority: 10", "apns-expiration: 0",
        ]
    }

    /// The phone's device connection, reading delivered lines.
    static func phone(_ rig: Rig, _ hello: String) async throws -> (TCPConnection, AsyncStream<TCPConnection.Event>.Iterator) {
        let connection = try TCPConnection.connect(host: "127.0.0.1", port: rig.devices.devicePort)
        #expect(await connection.write(Array((hello + "\n").utf8)))
        return (connection, connection.events.makeAsyncIterator())
    }

    @Test func curlPushesAVoIPPushAndGetsApplesAnswers() async throws {
        let rig = try await Self.rig()
        let (device, reader) = try await Self.phone(
            rig, #"{"token":"\#(Self.token)","topic":"com.example.astra.voip","environment":"sandbox"}"#)
        var lines = reader
        #expect(await eventually { await rig.devices.isOnline(Self.token) })
        let bearer = try await Self.providerToken(rig)
        let url = rig.apnsURL + "/3/device/" + Self.token
        let payload = #"{"aps":{},"push_id":"p-curl","caller":"1001","call_id":"c-1"}"#

        let ok = try await Self.curl(rig, url, headers: Self.voipHeaders(bearer), body: payload)
        #expect(ok.version == "HTTP/2")
        #expect(ok.status == 200, "\(ok)")
        let apnsID = try #require(ok.headers["apns-id"])
        #expect(APNsProviderAPI.isUUID(apnsID))
        #expect(ok.headers["apns-unique-id"] != nil)  // the sandbox adds it
        guard case .data(let bytes)? = await lines.next() else {
            Issue.record("the phone got nothing")
            return
        }
        let line = String(decoding: bytes, as: UTF8.self)
        #expect(line.contains("\"apns_id\":\"\(apnsID)\""), "\(line)")
        #expect(line.contains("\"payload\":\(payload)"), "\(line)")

        func refused(_ headers: [String], _ path: String = Self.token, _ body: String = payload) async throws -> (Int, String) {
            let answer = try await Self.curl(rig, rig.apnsURL + "/3/device/" + path, headers: headers, body: body)
            #expect(answer.headers["apns-id"] != nil)
            return (answer.status, answer.body)
        }
        // Wrong topic: this token belongs to another app's topic.
        #expect(try await refused(Self.voipHeaders(bearer, topic: "com.other.app.voip")) == (400, #"{"reason":"DeviceTokenNotForTopic"}"#))
        #expect(try await refused(Self.voipHeaders(bearer, topic: "com.example.astra")) == (400, #"{"reason":"BadTopic"}"#))
        // Bad token.
        #expect(try await refused(Self.voipHeaders(bearer), "not-a-token") == (400, #"{"reason":"BadDeviceToken"}"#))
        // Expired JWT, a token signed by another key, none at all. "Expired" is issued 70 minutes
        // ago: the emulator accepts an hour plus its 60 s clock skew, so 61 minutes sat on that
        // boundary and passed whenever minting and curl took under a second.
        let expired = try await Self.providerToken(rig, iat: Int64(Date().timeIntervalSince1970) - 4_200)
        #expect(try await refused(Self.voipHeaders(expired)) == (403, #"{"reason":"ExpiredProviderToken"}"#))
        let other = try await IndependentJWT.make()
        defer { other.remove() }
        let forged = try await Self.providerToken(rig, keyFile: other.ecPrivate)
        #expect(try await refused(Self.voipHeaders(forged)) == (403, #"{"reason":"InvalidProviderToken"}"#))
        #expect(try await refused(Self.voipHeaders(nil)) == (403, #"{"reason":"MissingProviderToken"}"#))
        // Oversize payload: 5121 bytes (the VoIP limit is 5120).
        let big = #"{"aps":{},"pad":""# + String(repeating: "x", count: 5_121 - 19) + #""}"#
        #expect(big.utf8.count == 5_121)
        #expect(try await refused(Self.voipHeaders(bearer), Self.token, big) == (413, #"{"reason":"PayloadTooLarge"}"#))
        let fits = String(big.dropLast(3)) + "\"}"
        #expect(try await Self.curl(rig, url, headers: Self.voipHeaders(bearer), body: fits).status == 200)
        // A rotated token: 410 with the time it became invalid.
        let newer = String(repeating: "5b", count: 32)
        let (second, _) = try await Self.phone(
            rig, #"{"token":"\#(newer)","topic":"com.example.astra.voip","environment":"sandbox","replaces":"\#(Self.token)"}"#)
        #expect(await eventually { await rig.devices.isOnline(newer) })
        let gone = try await Self.curl(rig, url, headers: Self.voipHeaders(bearer), body: payload)
        #expect(gone.status == 410)
        #expect(gone.body.hasPrefix(#"{"reason":"Unregistered","timestamp":"#), "\(gone.body)")
        // The emulator's events never carry a token or a bearer in clear.
        let logged = rig.events.all.map { "\($0)" }.joined()
        #expect(!logged.contains(Self.token) && !logged.contains(bearer))
        device.close()
        second.close()
        await rig.stop()
    }

    @Test func nghttpPushesAVoIPPush() async throws {
        let rig = try await Self.rig()
        let (device, reader) = try await Self.phone(
            rig, #"{"token":"\#(Self.token)","topic":"com.example.astra.voip","environment":"sandbox"}"#)
        var lines = reader
        #expect(await eventually { await rig.devices.isOnline(Self.token) })
        let bearer = try await Self.providerToken(rig)
        let body = FileManager.default.temporaryDirectory.appendingPathComponent("astra-nghttp-\(UInt64.random(in: 0...UInt64.max)).json")
        try Data(#"{"aps":{},"push_id":"p-nghttp"}"#.utf8).write(to: body)
        defer { try? FileManager.default.removeItem(at: body) }
        var arguments = ["-v", "-d", body.path]
        for header in Self.voipHeaders(bearer) { arguments += ["-H", header] }
        let result = try await ChildProcess.run(command: "nghttp", arguments + [rig.apnsURL + "/3/device/" + Self.token])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.text.contains(":status: 200"), "\(result.text)")
        #expect(result.text.contains("apns-id: "))
        guard case .data(let bytes)? = await lines.next() else {
            Issue.record("the phone got nothing")
            return
        }
        #expect(String(decoding: bytes, as: UTF8.self).contains("p-nghttp"))
        // An expired provider token through nghttp: 403 and Apple's reason.
        let expired = try await Self.providerToken(rig, iat: Int64(Date().timeIntervalSince1970) - 4_200)
        var again = ["-v", "-d", body.path]
        for header in Self.voipHeaders(expired) { again += ["-H", header] }
        let refused = try await ChildProcess.run(command: "nghttp", again + [rig.apnsURL + "/3/device/" + Self.token])
        #expect(refused.text.contains(":status: 403"), "\(refused.text)")
        #expect(refused.text.contains(#"{"reason":"ExpiredProviderToken"}"#))
        device.close()
        await rig.stop()
    }

    /// FCM HTTP v1 with curl: the OAuth2 JWT-bearer exchange (assertion minted by mint-jwt.py with
    /// the service account's RSA key), then messages:send; the phone gets the data message.
    @Test func curlSendsAnFCMDataMessage() async throws {
        let rig = try await Self.rig()
        let base = try #require(rig.emulator.fcmURL)
        let (device, reader) = try await Self.phone(
            rig, #"{"platform":"android","token":"\#(Self.fcmToken)","package":"com.example.astra","project_id":"astra-curl"}"#)
        var lines = reader
        #expect(await eventually { await rig.devices.isOnline(Self.fcmToken) })
        let now = Int64(Date().timeIntervalSince1970)
        let assertion = try await rig.keys.mint(
            "RS256",
            claims:
                #"{"iss":"curl@astra-curl.iam.gserviceaccount.com","scope":"https://www.googleapis.com/auth/firebase.messaging","aud":"\#(base)/token","iat":\#(now),"exp":\#(now + 3_600)}"#,
            header: #"{"alg":"RS256","typ":"JWT","kid":"curl-key-1"}"#)
        let grant = try await Self.curl(
            rig, base + "/token", headers: ["content-type: application/x-www-form-urlencoded"],
            body: "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=" + assertion)
        #expect(grant.status == 200, "\(grant)")
        let json = try JSONSerialization.jsonObject(with: Data(grant.body.utf8)) as? [String: Any]
        let access = try #require(json?["access_token"] as? String)
        #expect((json?["expires_in"] as? Int) == 3_599)
        let send = base + "/v1/projects/astra-curl/messages:send"
        let message =
            #"{"message":{"token":"\#(Self.fcmToken)","data":{"push_id":"p-fcm","caller":"1001","call_id":"c-2"},"android":{"priority":"high","ttl":"0s"}}}"#
        let sent = try await Self.curl(rig, send, headers: ["authorization: Bearer \(access)", "content-type: application/json"], body: message)
        #expect(sent.status == 200, "\(sent)")
        #expect(sent.body.contains(#""name":"projects/astra-curl/messages/"#))
        guard case .data(let bytes)? = await lines.next() else {
            Issue.record("the phone got nothing")
            return
        }
        let line = String(decoding: bytes, as: UTF8.self)
        #expect(line.contains(#""data":{"push_id":"p-fcm","caller":"1001","call_id":"c-2"}"#), "\(line)")
        #expect(line.contains(#""priority":"high","ttl_s":0"#))
        // Google's errors: no access token, an invalid argument, an unknown project.
        let anonymous = try await Self.curl(rig, send, headers: ["content-type: application/json"], body: message)
        #expect(anonymous.status == 401 && anonymous.body.contains("UNAUTHENTICATED"))
        let bad = try await Self.curl(
            rig, send, headers: ["authorization: Bearer \(access)"],
            body: #"{"message":{"token":"\#(Self.fcmToken)","data":{"n":1}}}"#)
        #expect(bad.status == 400 && bad.body.contains(#""errorCode":"INVALID_ARGUMENT""#), "\(bad.body)")
        let foreign = try await Self.curl(
            rig, base + "/v1/projects/other/messages:send", headers: ["authorization: Bearer \(access)"], body: message)
        #expect(foreign.status == 403)
        // A forged assertion (another key) is no grant.
        let other = try await IndependentJWT.make()
        defer { other.remove() }
        let forged = try await other.mint(
            "RS256",
            claims:
                #"{"iss":"curl@astra-curl.iam.gserviceaccount.com","scope":"https://www.googleapis.com/auth/firebase.messaging","aud":"\#(base)/token","iat":\#(now),"exp":\#(now + 3_600)}"#,
            header: #"{"alg":"RS256","typ":"JWT","kid":"curl-key-1"}"#)
        let refused = try await Self.curl(
            rig, base + "/token", headers: [],
            body: "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=" + forged)
        #expect(refused.status == 400 && refused.body.contains("invalid_grant"), "\(refused.body)")
        device.close()
        await rig.stop()
    }
}

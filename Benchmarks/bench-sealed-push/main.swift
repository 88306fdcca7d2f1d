// bench-sealed-push: what sealing costs the wake gateway (docs/wake-gateway.md "Sealed push").
// Prints ONE JSON object on stdout (scripts/bench.sh), diagnostics on stderr. Release build.
//
// 1. `per_push`: the work the gateway adds to one push when the registration is sealed — the
//    grant check (the grant's expiry, with the skew; the ES256 signature was verified once, at
//    registration) and the sealed payload (AES-256-GCM of the caller, gateway hash, JSON, padding
//    to the one length, the fit check), APNs and FCM — p50/p99 in µs over BENCH_SEAL_PUSHES
//    (default 20,000). Target: ≤ 1 ms at p99. Beside it, for reference, the registration-time
//    full grant check (`grant_verify_us`: JWS parse, ES256 verify, claims) and the phone's open.
// 2. `push_to_ring`: a call through the real gateway (WakeGatewayServer in this process, SIP over
//    UDP from a scripted Kamailio on loopback, the push over HTTP/2 + TLS to the provider emulator,
//    the emulated phone's device connection over TCP, the ack over HTTP): caller's INVITE at the
//    gateway → the push at the phone (opened, for a sealed one) → ack → REGISTER → qualify →
//    the released INVITE → the phone's 180 back at the caller's side. Sealed and clear calls
//    alternate in the same run (two registrations, same platform), BENCH_SEAL_CALLS each (default
//    200). Target: sealed within 2 ms of clear (p50 and p95). The phone's app process start is
//    not in it (bench-wake measures that); what sealing changes is all in this path.
import AstraJSON
import Foundation
import HTTPLite
import JWT
import SIPCore
import SIPTransport
import Synchronization
import WakeGateway

func log(_ text: String) { FileHandle.standardError.write(Data("bench-sealed-push: \(text)\n".utf8)) }
func micros(_ d: Duration) -> Double { Double(d.components.seconds) * 1e6 + Double(d.components.attoseconds) / 1e12 }
func percentile(_ values: [Double], _ p: Double) -> Double {
    guard !values.isEmpty else { return -1 }
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
}
func round3(_ x: Double) -> Double { (x * 1000).rounded() / 1000 }
/// `{"p50":…,"p95":…,"p99":…,"max":…,"n":…}` of `values` (in their unit).
func summary(_ values: [Double]) -> JSONValue {
    .object([
        "p50": .double(round3(percentile(values, 0.5))), "p95": .double(round3(percentile(values, 0.95))),
        "p99": .double(round3(percentile(values, 0.99))), "max": .double(round3(values.max() ?? -1)),
        "n": .int(Int64(values.count)),
    ])
}
func environment(_ key: String) -> Int? { ProcessInfo.processInfo.environment[key].flatMap { Int($0) } }

let gatewayID = WakeGatewayConfiguration.defaultGrantAudience
let deviceKey = try JWTKey.generate(.es256)
let deviceKeyText = Base64URL.encode(try deviceKey.spkiDER())
let callKey = KeyMaterial.bytes(CallSeal.keyBytes)
let nowSeconds = Int64(Date().timeIntervalSince1970)
let grant = try CallGrantChecker.mint(
    deviceKey: deviceKey, gatewayID: gatewayID, endpoint: "1002", issuedAt: nowSeconds, expiresAt: nowSeconds + 14 * 86_400)
let checker = try CallGrantChecker(deviceKey: try JWTKey.publicKey(spkiDER: try deviceKey.spkiDER()), gatewayID: gatewayID, endpoint: "1002")
guard case .valid(let grantExpiry) = checker.check(grant, now: nowSeconds) else { fatalError("the minted grant is refused") }
let sealing = PushSealing(deviceKey: deviceKeyText, grant: grant, callKey: callKey, grantExpiresAt: grantExpiry)

// MARK: 1. Per push

let pushes = environment("BENCH_SEAL_PUSHES") ?? 20_000
let clock = ContinuousClock()
var apnsUs: [Double] = [], fcmUs: [Double] = [], verifyUs: [Double] = [], openUs: [Double] = []
let fcmToken = "dBench0123456789abcdef:APA91b" + String(repeating: "x", count: 120)
var lengths = Set<Int>()
for i in 0..<pushes {
    let caller = SealedCaller(
        uri: "sip:+4477009\(100_000 + i)@ward\(i % 9).hospital.example", user: "+4477009\(100_000 + i)",
        name: "Patient \(i)", endMs: nowSeconds * 1_000 + 30_000)
    let callID = "bench-\(i)-" + String(repeating: "c", count: i % 64) + "@host"
    let pushID = "p" + String(repeating: "0", count: 48)
    let android = i % 2 == 1
    let began = clock.now
    // What the gateway does per push for a sealed registration (WakeGatewayServer+Push).
    guard sealing.grantLive(nowSeconds: Int64(Date().timeIntervalSince1970)) else { fatalError("grant not live") }
    let payload = try WakePushPayload.sealed(pushID: pushID, caller: caller, callID: callID, callKey: callKey, gatewayID: gatewayID)
    guard payload.fits(fcmToken: android ? fcmToken : nil, ttlSeconds: 0) else { fatalError("does not fit") }
    let body = android ? payload.fcmBody(token: fcmToken, ttlSeconds: 0) : payload.apnsBody
    let took = micros(began.duration(to: clock.now))
    lengths.insert(body.utf8.count)
    if android { fcmUs.append(took) } else { apnsUs.append(took) }
    if i % 10 == 0 {
        let verifyStart = clock.now
        guard case .valid = checker.check(grant, now: nowSeconds) else { fatalError("grant refused") }
        verifyUs.append(micros(verifyStart.duration(to: clock.now)))
        // The phone: the gateway hash, then the blob for this call ID.
        let blobText = payload.fields.first { $0.0 == "caller_blob" }!.1
        let openStart = clock.now
        guard payload.fields.first(where: { $0.0 == "gw" })?.1 == CallSeal.gatewayHash(key: callKey, gatewayID: gatewayID),
            let blob = Base64URL.decode(blobText), SealedCaller(plaintext: try CallSeal.open(blob, key: callKey, callID: callID)) != nil
        else { fatalError("the phone cannot open the push") }
        openUs.append(micros(openStart.duration(to: clock.now)))
    }
}
let perPush = apnsUs + fcmUs
log("per push: p50 \(round3(percentile(perPush, 0.5))) µs, p99 \(round3(percentile(perPush, 0.99))) µs; body lengths \(lengths.sorted())")

// MARK: 2. Push to ring, sealed and clear in the same run

/// Kamailio as the gateway sees it, scripted: sends the caller's INVITE, answers the gateway's
/// qualify (500 while the phone is asleep, 200 once it registered for this call), answers the
/// released INVITE with the phone's 180 then 486, ACKs the finals, and notes when each call's
/// 180 came back.
final class ScriptedKamailio: Sendable {
    let udp: UDPTransport
    let gateway: SocketAddress
    /// Call-ID → when the relayed 180 arrived; users whose phone registered for the current call.
    let rang = Mutex<[String: ContinuousClock.Instant]>([:])
    let awake = Mutex<Set<String>>([])
    let task = Mutex<Task<Void, Never>?>(nil)

    init(gatewaySIP: UInt16, udp: UDPTransport) {
        self.udp = udp
        gateway = SocketAddress(ip: "127.0.0.1", port: gatewaySIP)!
    }

    var port: UInt16 { udp.local.port }

    func send(_ text: String) async {
        let wire = text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\r\n")
        try? await udp.send(Array(wire.utf8), to: gateway)
    }

    func start() {
        let stream = udp.events
        task.withLock {
            $0 = Task {
                for await received in stream { await self.handle(received.message) }
            }
        }
    }

    func handle(_ message: SIPMessage) async {
        if let request = message.request {
            let user = request.uri.user ?? ""
            switch request.method {
            case .options:
                let status = awake.withLock { $0.contains(user) } ? 200 : 500
                try? await udp.send(SIPResponse(to: request, statusCode: status, toTag: "q").serialized(), to: gateway)
            case .invite:
                // The released INVITE, as the phone: 180 at once, then busy (the call ends there).
                try? await udp.send(SIPResponse(to: request, statusCode: 180, toTag: "ph").serialized(), to: gateway)
                try? await udp.send(SIPResponse(to: request, statusCode: 486, toTag: "ph").serialized(), to: gateway)
            case .ack:
                break
            default:
                try? await udp.send(SIPResponse(to: request, statusCode: 200, toTag: "k").serialized(), to: gateway)
            }
            return
        }
        guard let response = message.response, let callID = message.headers.callID else { return }
        if response.statusCode == 180, callID.hasPrefix("ring-") {
            let now = ContinuousClock.now
            rang.withLock { if $0[callID] == nil { $0[callID] = now } }
        }
        if response.statusCode >= 300, (try? message.headers.cseq())?.method == .invite, callID.hasPrefix("ring-") {
            await send(Self.ack(self, callID: callID, toTag: (try? message.headers.to())?.tag ?? ""))
        }
    }

    static func invite(_ k: ScriptedKamailio, user: String, callID: String) -> String {
        """
        INVITE sip:\(user)@127.0.0.1 SIP/2.0
        Via: SIP/2.0/UDP 127.0.0.1:\(k.port);branch=z9hG4bK-\(callID)
        Max-Forwards: 69
        From: "Patient Ward 4" <sip:+447700900123@ward4.hospital.example>;tag=c1
        To: <sip:\(user)@127.0.0.1>
        Call-ID: \(callID)
        CSeq: 2 INVITE
        Contact: <sip:caller@127.0.0.1:40000>
        Content-Length: 0


        """
    }

    static func ack(_ k: ScriptedKamailio, callID: String, toTag: String) -> String {
        """
        ACK sip:1002@127.0.0.1 SIP/2.0
        Via: SIP/2.0/UDP 127.0.0.1:\(k.port);branch=z9hG4bK-\(callID)
        Max-Forwards: 70
        From: "Patient Ward 4" <sip:+447700900123@ward4.hospital.example>;tag=c1
        To: <sip:x@127.0.0.1>;tag=\(toTag)
        Call-ID: \(callID)
        CSeq: 2 ACK
        Content-Length: 0


        """
    }

    static func register(_ k: ScriptedKamailio, user: String, n: Int) -> String {
        """
        REGISTER sip:127.0.0.1 SIP/2.0
        Via: SIP/2.0/UDP 127.0.0.1:\(k.port);branch=z9hG4bK-reg\(user)-\(n)
        Max-Forwards: 70
        From: <sip:\(user)@127.0.0.1>;tag=r\(n)
        To: <sip:\(user)@127.0.0.1>
        Call-ID: reg-\(user)@bench
        CSeq: \(n + 1) REGISTER
        Contact: <sip:\(user)@abc\(user).invalid;transport=ws>;expires=300
        Content-Length: 0


        """
    }
}

/// The emulated phone's device connection: the hello, then each push line, kept by call ID with
/// the time it was read.
final class Device: Sendable {
    let pushes = Mutex<[String: (JSONValue, ContinuousClock.Instant)]>([:])
    let connection: TCPConnection

    init(port: UInt16, token: String) async throws {
        connection = try TCPConnection.connect(host: "127.0.0.1", port: port)
        let hello = #"{"token":"\#(token)","topic":"com.example.astra.voip","environment":"sandbox"}"# + "\n"
        guard await connection.write(Array(hello.utf8)) else { throw HTTPLiteError("hello not written") }
        let events = connection.events
        Task { [self] in
            var buffer: [UInt8] = []
            for await event in events {
                guard case .data(let bytes) = event else { break }
                buffer += bytes
                while let newline = buffer.firstIndex(of: 10) {
                    let line = Array(buffer[..<newline])
                    buffer.removeSubrange(...newline)
                    let now = ContinuousClock.now
                    guard let json = try? JSONValue.parse(line), let payload = json["payload"],
                        let callID = payload["call_id"]?.stringValue
                    else { continue }
                    self.pushes.withLock { $0[callID] = (payload, now) }
                }
            }
        }
    }
}

/// `POST /api/v1/users/voip-push-ack` over HTTP/1.1; true on a 200.
func ack(_ pushID: String, port: UInt16) async -> Bool {
    guard let connection = try? TCPConnection.connect(host: "127.0.0.1", port: port) else { return false }
    defer { connection.close() }
    let body = #"{"push_id":"\#(pushID)"}"#
    let request =
        "POST /api/v1/users/voip-push-ack HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body
    guard await connection.write(Array(request.utf8)) else { return false }
    var answer: [UInt8] = []
    for await event in connection.events {
        guard case .data(let bytes) = event else { break }
        answer += bytes
        if answer.count >= 12 { break }
    }
    return String(decoding: answer.prefix(12), as: UTF8.self).hasPrefix("HTTP/1.1 200")
}

@MainActor func waitFor<T: Sendable>(_ seconds: Double, _ probe: () -> T?) async -> T? {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if let value = probe() { return value }
        try? await Task.sleep(for: .microseconds(200))
    }
    return nil
}

let calls = environment("BENCH_SEAL_CALLS") ?? 200
let kamailioUDP = try UDPTransport(local: SocketAddress(ip: "127.0.0.1", port: 0)!, log: .discard)
var configuration = WakeGatewayConfiguration()
(configuration.sipPort, configuration.httpPort, configuration.apnsDevicePort) = (0, 0, 0)
configuration.kamailio = kamailioUDP.local
configuration.ackWindowMs = 5_000
configuration.providerTimeoutMs = 5_000
configuration.pushRateLimit = PushRateLimit(burst: 100_000, perMinute: 1_000_000)
let sealedToken = String(repeating: "5e", count: 32), clearToken = String(repeating: "c1", count: 32)
let state = MemoryStateStore()
try await state.commit([
    .saveRegistration(
        PushRegistration(
            endpoint: "1002", token: sealedToken, environment: .sandbox, bundleID: "com.example.astra", platform: "ios",
            updatedAt: nowSeconds * 1_000, sealing: sealing)),
    .saveRegistration(
        PushRegistration(
            endpoint: "1003", token: clearToken, environment: .sandbox, bundleID: "com.example.astra", platform: "ios",
            updatedAt: nowSeconds * 1_000)),
])
let gateway = try WakeGatewayServer(configuration: configuration, clock: ContinuousClock(), state: state)
let ports = try await gateway.start()
await gateway.devices?.setDeviceRateLimit(1_000_000)
let kamailio = ScriptedKamailio(gatewaySIP: ports.sip, udp: kamailioUDP)
kamailio.start()
let sealedPhone = try await Device(port: ports.apnsDevice, token: sealedToken)
let clearPhone = try await Device(port: ports.apnsDevice, token: clearToken)
try await Task.sleep(for: .milliseconds(200))  // both hellos taken

var ring: [String: [Double]] = ["sealed": [], "clear": []]
var toPush: [String: [Double]] = ["sealed": [], "clear": []]
var failures = 0
for i in 0..<(2 * calls + 10) {
    let sealed = i % 2 == 0
    let mode = sealed ? "sealed" : "clear"
    let (user, phone) = sealed ? ("1002", sealedPhone) : ("1003", clearPhone)
    let callID = "ring-\(i)-" + SecureBytes.hex(KeyMaterial.bytes(6))
    kamailio.awake.withLock { _ = $0.remove(user) }
    let start = ContinuousClock.now
    await kamailio.send(ScriptedKamailio.invite(kamailio, user: user, callID: callID))
    guard let (payload, arrived) = await waitFor(10, { phone.pushes.withLock { $0[callID] } }),
        let pushID = payload["push_id"]?.stringValue
    else {
        failures += 1
        log("call \(i) (\(mode)): no push at the phone")
        continue
    }
    // The phone reads the push: a sealed one is opened (gateway hash, then the blob for the call ID).
    if sealed {
        guard payload["gw"]?.stringValue == CallSeal.gatewayHash(key: callKey, gatewayID: gatewayID),
            let blob = payload["caller_blob"]?.stringValue.flatMap(Base64URL.decode),
            (try? CallSeal.open(blob, key: callKey, callID: callID)) != nil
        else {
            failures += 1
            log("call \(i): the sealed push does not open")
            continue
        }
    } else if payload["caller"] == nil {
        failures += 1
    }
    let opened = ContinuousClock.now
    guard await ack(pushID, port: ports.http) else {
        failures += 1
        log("call \(i) (\(mode)): ack refused")
        continue
    }
    kamailio.awake.withLock { _ = $0.insert(user) }
    await kamailio.send(ScriptedKamailio.register(kamailio, user: user, n: i))
    guard let rang = await waitFor(10, { kamailio.rang.withLock { $0[callID] } }) else {
        failures += 1
        log("call \(i) (\(mode)): no 180")
        continue
    }
    _ = arrived
    if i >= 10 {  // the first calls warm the connections up
        ring[mode, default: []].append(micros(start.duration(to: rang)) / 1_000)
        toPush[mode, default: []].append(micros(start.duration(to: opened)) / 1_000)
    }
    try? await Task.sleep(for: .milliseconds(5))
}
await gateway.stop()
let sealedRing = ring["sealed"] ?? [], clearRing = ring["clear"] ?? []
let deltaP50 = percentile(sealedRing, 0.5) - percentile(clearRing, 0.5)
let deltaP95 = percentile(sealedRing, 0.95) - percentile(clearRing, 0.95)
log("push to ring: sealed p50 \(round3(percentile(sealedRing, 0.5))) ms, clear \(round3(percentile(clearRing, 0.5))) ms; failures \(failures)")

let load = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").first.map(String.init) ?? "?"
let result: JSONValue = .object([
    "bench": "sealed-push",
    "per_push_us": summary(perPush), "per_push_apns_us": summary(apnsUs), "per_push_fcm_us": summary(fcmUs),
    "grant_verify_us": summary(verifyUs), "phone_open_us": summary(openUs),
    "sealed_body_lengths": .array(lengths.sorted().map { .int(Int64($0)) }),
    "per_push_p99_target_us": 1_000, "per_push_p99_ok": .bool(percentile(perPush, 0.99) <= 1_000),
    "push_to_ring_sealed_ms": summary(sealedRing), "push_to_ring_clear_ms": summary(clearRing),
    "invite_to_push_opened_sealed_ms": summary(toPush["sealed"] ?? []),
    "invite_to_push_opened_clear_ms": summary(toPush["clear"] ?? []),
    "push_to_ring_delta_p50_ms": .double(round3(deltaP50)), "push_to_ring_delta_p95_ms": .double(round3(deltaP95)),
    "push_to_ring_delta_target_ms": 2, "push_to_ring_ok": .bool(deltaP50 <= 2 && deltaP95 <= 2),
    "failures": .int(Int64(failures)), "load_average": .string(load),
])
print(result.jsonText)
exit(failures == 0 ? 0 : 1)

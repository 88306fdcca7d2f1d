import AstraJSON
import HTTPLite
import PushKitEmu
import SIPCore

/// What the emulated push service did with an accepted push.
public enum PushDelivery: String, Sendable, Hashable {
    /// Written to the device's connection after the configured delay.
    case delivered
    /// The device is offline and the push may not wait (`apns-expiration: 0`, FCM `ttl: 0s`): never
    /// delivered (docs/push-wake-rules.md R6).
    case dropped
    /// The device is offline; kept (latest per device) and delivered on reconnect before it expires.
    case stored
}

/// APNs' answer to one provider request, as the device side decides it.
public enum APNsOutcome: Sendable, Hashable {
    case accepted(apnsID: String, PushDelivery)
    /// Apple's reason; 410 carries when the token stopped being valid (ms since 1970).
    case refused(APNsReason, timestampMs: Int64?)
}

/// FCM's answer to one send, as the device side decides it.
public enum FCMOutcome: Sendable, Hashable {
    case accepted(messageID: String, PushDelivery)
    case refused(FCMErrorCode)
}

/// The push services' device side, emulated in the gateway process: the emulated phones' push
/// channels (an iPhone's `apsd` connection to APNs, an Android phone's Google Play services
/// connection to FCM) on one loopback TCP port speaking JSON Lines, and the delivery model behind
/// both provider APIs (PushKitEmu's ``APNsModel``: token environment, 5 KB, expiration 0 = deliver
/// now or drop, non-zero = store latest and deliver on reconnect). The provider APIs themselves —
/// Apple's `POST /3/device/<token>` and FCM's `messages:send` over HTTP/2 — are
/// ``ProviderEmulatorServer``'s; they hand accepted requests here (``submitAPNs(_:environment:)``,
/// ``submitFCM(_:)``). The contract with the phone (docs/wake-gateway.md):
///
/// - the phone connects and sends one line: iOS
///   `{"token":"<hex>","topic":"<bundle>.voip","environment":"sandbox"|"production"}`, Android
///   `{"platform":"android","token":"<FCM token>","package":"<app id>","project_id":"<FCM project>"}`;
/// - each delivered push is one line: iOS
///   `{"apns_id":…,"push_type":"voip","topic":…,"priority":10,"expiration":0,"payload":{…}}`,
///   Android `{"platform":"android","message_id":…,"priority":"high","ttl_s":0,"data":{…}}`.
///
/// An offline phone has no connection open. Tokens are logged only redacted. Accepted hellos and
/// closed device connections are events (`device_connected`, `device_disconnected`).
///
/// Bounded (THREATS.md): device connections go through a ``ConnectionTable`` (caps with eviction
/// of the quietest, the hello must arrive within `headerTimeoutMs`); what is remembered about
/// tokens that are offline (last hello, delivery model, retired tokens) is capped at
/// ``maxRememberedTokens``, oldest first. Like APNs (429 TooManyRequests) and FCM (429
/// QUOTA_EXCEEDED) it refuses more than ``deviceRateLimit`` pushes a minute to one token.
public actor PushEmulator<C: Clock<Duration>> {
    public typealias Log = @Sendable (String) -> Void
    public typealias Emit = @Sendable (WakeEvent) -> Void

    struct Device {
        var connection: TCPConnection
        var hello: DeviceHello
    }

    struct Stored {
        var line: String
        var id: String
    }

    public nonisolated let devicePort: UInt16
    let listener: TCPListener
    let settings: EmulatorSettings
    let clock: C
    let start: C.Instant
    let wallClockMs: @Sendable () -> Int64
    let log: Log
    let emit: Emit
    var devices: [String: Device] = [:]
    /// The last hello of each token ever seen (a push service knows a device's token while it is offline).
    var known: [String: DeviceHello] = [:]
    var models: [String: APNsModel] = [:]
    /// Tokens rotated away (a hello's `replaces`), with when (wall ms): 410 Unregistered / UNREGISTERED.
    var retired: [String: Int64] = [:]
    var stored: [Int32: Stored] = [:]
    var storedToken: [Int32: String] = [:]
    var nextPush: Int32 = 0
    var tasks: [Task<Void, Never>] = []
    var table: ConnectionTable<ObjectIdentifier>
    var open: [ObjectIdentifier: TCPConnection] = [:]
    /// Insertion order of ``known`` tokens, for the cap.
    var knownOrder: [String] = []
    /// Recent push times per token (ms), for the rate model.
    var recentPushes: [String: [Int64]] = [:]
    /// Pushes one device token may get per minute before the service answers 429.
    public private(set) var deviceRateLimit = 60
    /// Offline tokens remembered at most (hello, model, retired).
    public static var maxRememberedTokens: Int { 10_000 }

    public init(
        host: String = "127.0.0.1", devicePort: UInt16 = 0, delayMs: Int64 = 0,
        limits: ConnectionLimits = ConnectionLimits(headerTimeoutMs: 5_000, idleTimeoutMs: 3_600_000), clock: C,
        wallClockMs: @escaping @Sendable () -> Int64 = WallClock.nowMs, log: @escaping Log = { _ in },
        emit: @escaping Emit = { _ in }
    ) throws(HTTPLiteError) {
        listener = try TCPListener(host: host, port: devicePort)
        table = ConnectionTable(limits: limits)
        self.devicePort = listener.port
        var settings = EmulatorSettings()
        settings.apnsDelay = .fixed(delayMs)
        self.settings = settings
        self.clock = clock
        start = clock.now
        self.wallClockMs = wallClockMs
        self.log = log
        self.emit = emit
    }

    public func startAccepting() {
        guard tasks.isEmpty else { return }
        let listener = listener
        tasks.append(Task { for await connection in listener.connections { self.adopt(connection) } })
        tasks.append(Task { [weak self] in for await _ in listener.descriptorPressure { await self?.evictForDescriptor() } })
        tasks.append(table.limits.sweepLoop { [weak self] in await self?.sweep() != nil })
    }

    public func stop() {
        listener.close()
        for task in tasks { task.cancel() }
        tasks.removeAll()
        for connection in open.values { connection.close() }
        open.removeAll()
        devices.removeAll()
    }

    /// Sets the rate model's per-token limit (pushes per minute).
    public func setDeviceRateLimit(_ perMinute: Int) { deviceRateLimit = max(1, perMinute) }

    /// Device connections open now (with or without a hello).
    public var openConnections: Int { open.count }

    /// The device port's `accept()` failures for want of descriptors (``TCPListener/acceptFailures``).
    public nonisolated var acceptFailures: Int { listener.acceptFailures }

    /// Per-token state held now, by kind (a long run must keep it bounded).
    public var stateCounts: [String: Int] {
        [
            "devices": devices.count, "known": known.count, "models": models.count, "retired": retired.count,
            "stored": stored.count, "connections": open.count, "recent_push_tokens": recentPushes.count,
        ]
    }

    func sweep() {
        for (id, _) in table.expired(nowMs: nowMs) {
            table.remove(id)
            open.removeValue(forKey: id)?.close()
        }
        let cutoff = nowMs - 60_000
        recentPushes = recentPushes.compactMapValues { times in
            let kept = times.filter { $0 > cutoff }
            return kept.isEmpty ? nil : kept
        }
    }

    func evictForDescriptor() {
        guard let victim = table.evictQuietest() else { return }
        open.removeValue(forKey: victim)?.close()
    }

    /// Remembers `token`'s hello; past the cap the oldest offline tokens are forgotten.
    func remember(_ hello: DeviceHello) {
        let token = hello.token
        if known.updateValue(hello, forKey: token) == nil { knownOrder.append(token) }
        guard known.count > Self.maxRememberedTokens else { return }
        var keep: [String] = []
        for old in knownOrder {
            if known.count > Self.maxRememberedTokens, devices[old] == nil, old != token {
                known[old] = nil
                models[old] = nil
                retired[old] = nil
            } else {
                keep.append(old)
            }
        }
        knownOrder = keep
    }

    /// Whether a device with this token has its connection open.
    public func isOnline(_ token: String) -> Bool { devices[token] != nil || devices[token.lowercased()] != nil }

    var nowMs: Int64 {
        let elapsed = start.duration(to: clock.now)
        return elapsed.components.seconds * 1_000 + elapsed.components.attoseconds / 1_000_000_000_000_000
    }

    /// The per-token rate model: true when one more push this minute is allowed (and counts it).
    func allowPush(_ token: String) -> Bool {
        var times = (recentPushes[token] ?? []).filter { $0 > nowMs - 60_000 }
        guard times.count < deviceRateLimit else {
            recentPushes[token] = times
            log("push service: 429 for \(TokenText.redact(token)) (\(times.count) pushes this minute)")
            return false
        }
        times.append(nowMs)
        recentPushes[token] = times
        return true
    }

    // MARK: APNs

    /// An accepted provider request (``APNsProviderAPI``) at the `environment` endpoint: judged
    /// against the token's state, then delivered, stored or dropped.
    public func submitAPNs(_ submission: APNsSubmission, environment: APNsEnvironment) -> APNsOutcome {
        let token = submission.token
        if let since = retired[token] { return .refused(.unregistered, timestampMs: since) }
        let hello = known[token]
        if let hello {
            if hello.platform != .ios { return .refused(.badDeviceToken, timestampMs: nil) }
            if hello.environment != environment { return .refused(.badDeviceToken, timestampMs: nil) }
            if hello.topic != submission.topic { return .refused(.deviceTokenNotForTopic, timestampMs: nil) }
        }
        guard allowPush(token) else { return .refused(.tooManyRequests, timestampMs: nil) }
        let apnsID = submission.apnsID ?? APNsID.random()
        var request = APNsRequest()
        request.pushType = submission.pushType
        request.topic = submission.topic
        request.priority = submission.priority
        // apns-expiration is a UNIX date; the model counts seconds from now (a past date: once).
        request.expirationSeconds =
            submission.expiration == 0 ? 0 : Int(max(0, submission.expiration - wallClockMs() / 1_000))
        request.payloadBytes = submission.payload.count
        let line = Self.apnsLine(apnsID: apnsID, request: request, payload: Self.payloadValue(submission.payload))
        let bundle = submission.topic.hasSuffix(".voip") ? String(submission.topic.dropLast(5)) : submission.topic
        switch judge(token, request, bundle: bundle, environment: environment, line: line, id: apnsID) {
        case .rejected(let rejection):
            let reason: APNsReason =
                switch rejection {
                case .badPriority: .badPriority
                case .invalidPushType: .invalidPushType
                case .badTopic: .deviceTokenNotForTopic
                case .payloadTooLarge: .payloadTooLarge
                case .badDeviceToken: .badDeviceToken
                case .unregistered: .unregistered
                case .tooManyRequests: .tooManyRequests
                }
            return .refused(reason, timestampMs: reason == .unregistered ? wallClockMs() : nil)
        case .accepted(let delivery):
            return .accepted(apnsID: apnsID, delivery)
        }
    }

    /// The line the phone's connection receives for an APNs push (docs/wake-gateway.md).
    static func apnsLine(apnsID: String, request: APNsRequest, payload: JSONValue) -> String {
        JSONValue.object([
            "apns_id": .string(apnsID), "push_type": .string(request.pushType), "topic": .string(request.topic),
            "priority": .int(request.priority), "expiration": .int(request.expirationSeconds), "payload": payload,
        ]).jsonText
    }

    /// The payload for the device line: the object as sent (numbers as their literals, so the
    /// phone reads the text the server wrote), or — a payload that is not a JSON object (APNs
    /// delivers it all the same) — a string the phone cannot read as a call.
    static func payloadValue(_ bytes: [UInt8]) -> JSONValue {
        if let json = try? JSONValue.parse(bytes), case .object = json { return json }
        return .string(String(decoding: bytes, as: UTF8.self))
    }

    // MARK: FCM

    /// An accepted FCM send (``FCMProviderAPI``): judged against the token's state, then delivered,
    /// stored (ttl > 0) or dropped (ttl 0, device offline).
    public func submitFCM(_ message: FCMSubmission) -> FCMOutcome {
        let token = message.token
        if retired[token] != nil { return .refused(.unregistered) }
        if let hello = known[token] {
            if hello.platform != .android { return .refused(.invalidArgument) }
            if hello.project != message.project { return .refused(.senderIDMismatch) }
        }
        guard allowPush(token) else { return .refused(.quotaExceeded) }
        nextPush += 1
        let messageID = "projects/\(message.project)/messages/0:\(wallClockMs())%\(String(nextPush, radix: 16))"
        let line = JSONValue.object([
            "platform": "android", "message_id": .string(messageID), "priority": .string(message.priority),
            "ttl_s": .int(message.ttlSeconds), "data": message.data,
        ]).jsonText
        // FCM's delivery follows the same rules as the APNs model: online → now, offline + ttl 0 →
        // dropped, offline + ttl > 0 → latest kept for ttl. The package plays the topic's part.
        let package = known[token]?.topic ?? "android"
        var request = APNsRequest()
        request.topic = package + ".voip"
        request.expirationSeconds = Int(message.ttlSeconds)
        request.payloadBytes = message.data.jsonText.utf8.count
        switch judge(token, request, bundle: package, environment: APNsEnvironment.production, line: line, id: messageID) {
        case .rejected: return .refused(.invalidArgument)
        case .accepted(let delivery): return .accepted(messageID: messageID, delivery)
        }
    }

    // MARK: Delivery (both services)

    enum Verdict {
        case accepted(PushDelivery)
        case rejected(APNsRejection)
    }

    /// The delivery model's verdict for `token`: deliver now (after the delay), store or drop.
    func judge(
        _ token: String, _ request: APNsRequest, bundle: String, environment: APNsEnvironment, line: String, id: String
    ) -> Verdict {
        var model = models[token] ?? APNsModel(bundleID: bundle, environment: environment, settings: settings)
        model.environment = environment
        nextPush += 1
        let push = nextPush
        let action = model.submit(
            request, push: push, now: nowMs, tokenValid: true, tokenEnvironment: environment,
            deviceOnline: devices[token] != nil)
        if models.updateValue(model, forKey: token) == nil, known[token] == nil, models.count > Self.maxRememberedTokens {
            models.removeValue(forKey: models.keys.first { $0 != token && devices[$0] == nil } ?? token)
        }
        switch action {
        case .reject(let reason):
            log("push service: rejected push to \(TokenText.redact(token)): \(reason.rawValue)")
            return .rejected(reason)
        case .deliver(_, let afterMs):
            deliver(line, to: token, afterMs: afterMs)
            return .accepted(.delivered)
        case .store(let push):
            for (old, owner) in storedToken where owner == token {
                stored[old] = nil
                storedToken[old] = nil
            }
            stored[push] = Stored(line: line, id: id)
            storedToken[push] = token
            log("push service: device \(TokenText.redact(token)) offline: push \(id) stored for reconnect")
            return .accepted(.stored)
        case .drop, .none, .lose:  // the gateway's emulator loses nothing (no loss rate is set)
            log("push service: device \(TokenText.redact(token)) offline: push \(id) dropped (may not wait)")
            return .accepted(.dropped)
        }
    }

    func deliver(_ line: String, to token: String, afterMs: Int64) {
        let clock = clock
        Task {
            if afterMs > 0 { try? await clock.sleep(for: .milliseconds(afterMs)) }
            await self.write(line, to: token)
        }
    }

    func write(_ line: String, to token: String) async {
        guard let device = devices[token] else {
            log("push service: device \(TokenText.redact(token)) went offline before delivery: push lost")
            return
        }
        if !(await device.connection.write(Array((line + "\n").utf8))) {
            log("push service: write to device \(TokenText.redact(token)) failed")
        }
    }
}

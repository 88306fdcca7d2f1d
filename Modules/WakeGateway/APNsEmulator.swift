import HTTPLite
import PushKitEmu
import SIPCore

/// What the emulated APNs did with one push request.
public enum APNsSendResult: Sendable, Hashable {
    /// Accepted; written to the device's connection after the configured delay.
    case delivered(apnsID: String)
    /// Accepted while the device is offline with `apns-expiration: 0`: never delivered (R6).
    case dropped(apnsID: String)
    /// Accepted while offline with a non-zero expiration: kept (latest per device) for reconnect.
    case stored(apnsID: String)
    /// Refused (Apple's `reason` strings: BadTopic, BadDeviceToken, PayloadTooLarge, …).
    case rejected(APNsRejection)
}

/// APNs, emulated in the gateway process: the provider side is an in-process call with
/// PushKitEmu's ``APNsModel`` rules (header checks, token environment, 5 KB, expiration 0 =
/// deliver now or drop, non-zero = store latest and deliver on reconnect); the device side is a
/// loopback TCP port speaking JSON Lines — the contract with the phone (docs/wake-gateway.md):
///
/// - the phone connects and sends one line
///   `{"token":"<hex>","topic":"<bundle>.voip","environment":"sandbox"|"production"}`;
/// - the emulator writes each delivered push as one line
///   `{"apns_id":…,"push_type":"voip","topic":…,"priority":10,"expiration":0,"payload":{…}}`.
///
/// An offline phone has no connection open. Tokens are logged only redacted. Accepted hellos and
/// closed device connections are events (`device_connected`, `device_disconnected`).
///
/// Bounded (THREATS.md): device connections go through a ``ConnectionTable`` (caps with eviction
/// of the quietest, the hello must arrive within `headerTimeoutMs`); what APNs remembers about
/// tokens that are offline (last hello, delivery model, retired tokens) is capped at
/// ``maxRememberedTokens``, oldest first. Like APNs, it answers 429 TooManyRequests when one
/// device token gets more than ``deviceRateLimit`` pushes in a minute.
public actor APNsEmulator<C: Clock<Duration>> {
    public typealias Log = @Sendable (String) -> Void
    public typealias Emit = @Sendable (WakeEvent) -> Void

    private struct Device {
        var connection: TCPConnection
        var topic: String
        var environment: APNsEnvironment
    }

    private struct Stored {
        var line: String
        var apnsID: String
    }

    public nonisolated let devicePort: UInt16
    private let listener: TCPListener
    private let delayMs: Int64
    private let settings: EmulatorSettings
    private let clock: C
    private let start: C.Instant
    private let log: Log
    private let emit: Emit
    private var devices: [String: Device] = [:]
    /// The last hello of each token ever seen (APNs knows a device's token while it is offline).
    private var known: [String: (topic: String, environment: APNsEnvironment)] = [:]
    private var models: [String: APNsModel] = [:]
    /// Tokens PushKit rotated away (a device hello's `replaces`): APNs answers 410 Unregistered.
    private var retired: Set<String> = []
    private var stored: [Int32: Stored] = [:]
    private var storedToken: [Int32: String] = [:]
    private var nextPush: Int32 = 0
    private var acceptTask: Task<Void, Never>?
    private var sweepTask: Task<Void, Never>?
    private var generator = SystemRandomNumberGenerator()
    private var table: ConnectionTable<ObjectIdentifier>
    private var open: [ObjectIdentifier: TCPConnection] = [:]
    /// Insertion order of ``known`` tokens, for the cap.
    private var knownOrder: [String] = []
    /// Recent push times per token (ms), for the 429 model.
    private var recentPushes: [String: [Int64]] = [:]
    /// Pushes one device token may get per minute before APNs answers 429.
    public private(set) var deviceRateLimit = 60
    /// Offline tokens remembered at most (hello, model, retired).
    public static var maxRememberedTokens: Int { 10_000 }

    public init(
        host: String = "127.0.0.1", devicePort: UInt16 = 0, delayMs: Int64 = 0,
        limits: ConnectionLimits = ConnectionLimits(headerTimeoutMs: 5_000, idleTimeoutMs: 3_600_000), clock: C,
        log: @escaping Log = { _ in }, emit: @escaping Emit = { _ in }
    ) throws(HTTPLiteError) {
        listener = try TCPListener(host: host, port: devicePort)
        table = ConnectionTable(limits: limits)
        self.devicePort = listener.port
        self.delayMs = delayMs
        var settings = EmulatorSettings()
        settings.apnsDelay = .fixed(delayMs)
        self.settings = settings
        self.clock = clock
        start = clock.now
        self.log = log
        self.emit = emit
    }

    public func startAccepting() {
        guard acceptTask == nil else { return }
        let listener = listener
        acceptTask = Task {
            for await connection in listener.connections { self.adopt(connection) }
        }
        let sweepMs = max(10, min(table.limits.headerTimeoutMs / 4, 1_000))
        sweepTask = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(sweepMs))
                await self?.sweep()
            }
        }
    }

    public func stop() {
        listener.close()
        acceptTask?.cancel()
        sweepTask?.cancel()
        for connection in open.values { connection.close() }
        open.removeAll()
        devices.removeAll()
    }

    /// Sets the 429 model's per-token limit (pushes per minute).
    public func setDeviceRateLimit(_ perMinute: Int) { deviceRateLimit = max(1, perMinute) }

    /// Device connections open now (with or without a hello).
    public var openConnections: Int { open.count }

    /// Per-token state held now, by kind (a long run must keep it bounded).
    public var stateCounts: [String: Int] {
        [
            "devices": devices.count, "known": known.count, "models": models.count, "retired": retired.count,
            "stored": stored.count, "connections": open.count, "recent_push_tokens": recentPushes.count,
        ]
    }

    private func sweep() {
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

    /// Remembers `token`'s hello; past the cap the oldest offline tokens are forgotten.
    private func remember(_ token: String, _ hello: (topic: String, environment: APNsEnvironment)) {
        if known.updateValue(hello, forKey: token) == nil { knownOrder.append(token) }
        guard known.count > Self.maxRememberedTokens else { return }
        var keep: [String] = []
        for old in knownOrder {
            if known.count > Self.maxRememberedTokens, devices[old] == nil, old != token {
                known[old] = nil
                models[old] = nil
                retired.remove(old)
            } else {
                keep.append(old)
            }
        }
        knownOrder = keep
    }

    /// Whether a device with this token has its connection open.
    public func isOnline(_ token: String) -> Bool { devices[token.lowercased()] != nil }

    private var nowMs: Int64 {
        let elapsed = start.duration(to: clock.now)
        return elapsed.components.seconds * 1_000 + elapsed.components.attoseconds / 1_000_000_000_000_000
    }

    /// A provider request (`POST /3/device/<token>` in Apple's API) for `token` sent to the
    /// `environment` endpoint with `request`'s headers and `payload` (a JSON object text).
    public func send(token rawToken: String, environment: APNsEnvironment, request: APNsRequest, payload: String)
        async -> APNsSendResult
    {
        let token = rawToken.lowercased()
        let apnsID = newAPNsID()
        var request = request
        request.payloadBytes = payload.utf8.count
        let hello = known[token]
        let deviceTopic = hello?.topic ?? request.topic
        let bundle = deviceTopic.hasSuffix(".voip") ? String(deviceTopic.dropLast(5)) : deviceTopic
        var model = models[token] ?? APNsModel(bundleID: bundle, environment: environment, settings: settings)
        model.environment = environment
        nextPush += 1
        let push = nextPush
        var times = recentPushes[token] ?? []
        times = times.filter { $0 > nowMs - 60_000 }
        guard times.count < deviceRateLimit else {
            recentPushes[token] = times
            log("apns: 429 TooManyRequests for \(TokenText.redact(token)) (\(times.count) pushes this minute)")
            return .rejected(.tooManyRequests)
        }
        times.append(nowMs)
        recentPushes[token] = times
        let action = model.submit(
            request, push: push, now: nowMs, tokenValid: !retired.contains(token), tokenEnvironment: hello?.environment ?? environment,
            deviceOnline: devices[token] != nil)
        if models.updateValue(model, forKey: token) == nil, known[token] == nil, models.count > Self.maxRememberedTokens {
            models.removeValue(forKey: models.keys.first { $0 != token && devices[$0] == nil } ?? token)
        }
        let line = Self.line(apnsID: apnsID, request: request, payload: payload)
        switch action {
        case .reject(let reason):
            log("apns: rejected push to \(TokenText.redact(token)): \(reason.rawValue)")
            return .rejected(reason)
        case .deliver(_, let afterMs):
            deliver(line, to: token, afterMs: afterMs)
            return .delivered(apnsID: apnsID)
        case .store(let push):
            for (old, owner) in storedToken where owner == token { stored[old] = nil; storedToken[old] = nil }
            stored[push] = Stored(line: line, apnsID: apnsID)
            storedToken[push] = token
            log("apns: device \(TokenText.redact(token)) offline: push \(apnsID) stored for reconnect")
            return .stored(apnsID: apnsID)
        case .drop:
            log("apns: device \(TokenText.redact(token)) offline: push \(apnsID) dropped (apns-expiration 0)")
            return .dropped(apnsID: apnsID)
        case .none, .lose:  // the gateway's emulator loses nothing (no loss rate is set)
            return .dropped(apnsID: apnsID)
        }
    }

    private func deliver(_ line: String, to token: String, afterMs: Int64) {
        let clock = clock
        Task {
            if afterMs > 0 { try? await clock.sleep(for: .milliseconds(afterMs)) }
            await self.write(line, to: token)
        }
    }

    private func write(_ line: String, to token: String) async {
        guard let device = devices[token] else {
            log("apns: device \(TokenText.redact(token)) went offline before delivery: push lost")
            return
        }
        if !(await device.connection.write(Array((line + "\n").utf8))) {
            log("apns: write to device \(TokenText.redact(token)) failed")
        }
    }

    static func line(apnsID: String, request: APNsRequest, payload: String) -> String {
        "{\"apns_id\":\"\(apnsID)\",\"push_type\":" + JSONLine.quote(request.pushType) + ",\"topic\":"
            + JSONLine.quote(request.topic) + ",\"priority\":\(request.priority),\"expiration\":"
            + "\(request.expirationSeconds),\"payload\":\(payload)}"
    }

    private func newAPNsID() -> String {
        let hex = (0..<4).map { _ in
            let v = String(UInt32.random(in: 0...UInt32.max, using: &generator), radix: 16, uppercase: true)
            return String(repeating: "0", count: 8 - v.count) + v
        }.joined()
        let c = Array(hex)
        return String(c[0..<8]) + "-" + String(c[8..<12]) + "-" + String(c[12..<16]) + "-" + String(c[16..<20]) + "-"
            + String(c[20..<32])
    }

    // MARK: Device side

    private func adopt(_ connection: TCPConnection) {
        let id = ObjectIdentifier(connection)
        switch table.admit(id, peer: connection.remoteIP, nowMs: nowMs) {
        case .refused:
            connection.close()
            return
        case .accepted(let evicted):
            if let evicted { open.removeValue(forKey: evicted)?.close() }
        }
        open[id] = connection
        // Until its hello, a device connection is "reading": the header timeout applies.
        table.update(id, .reading(sinceMs: nowMs), nowMs: nowMs)
        Task {
            await self.readHello(connection)
            self.closed(id)
        }
    }

    private func closed(_ id: ObjectIdentifier) {
        table.remove(id)
        open.removeValue(forKey: id)?.close()
    }

    private func readHello(_ connection: TCPConnection) async {
        var buffer: [UInt8] = []
        var token: String?
        for await event in connection.events {
            guard case .data(let bytes) = event else { break }
            if token != nil { continue }  // the device sends nothing after its hello
            buffer += bytes
            guard let newline = buffer.firstIndex(of: 10) else {
                if buffer.count > 4_096 { connection.close() }
                continue
            }
            switch Self.parseHello(Array(buffer[0..<newline])) {
            case .failure(let reason):
                log("apns: device \(connection.remote) sent a bad hello: \(reason.message)")
                _ = await connection.write(Array("{\"error\":\(JSONLine.quote(reason.message))}\n".utf8))
                connection.close()
                return
            case .success(let hello):
                token = hello.token
                table.update(ObjectIdentifier(connection), .idle, nowMs: nowMs)
                await online(hello, connection)
            }
        }
        if let token, devices[token]?.connection === connection {
            devices[token] = nil
            log("apns: device \(TokenText.redact(token)) disconnected")
            emit(WakeEvent("device_disconnected", [("token", .string(TokenText.redact(token)))]))
        }
    }

    private func online(_ hello: DeviceHello, _ connection: TCPConnection) async {
        devices[hello.token]?.connection.close()
        if let old = hello.replaces, old != hello.token {
            // PushKit rotated the device's token: the old one is dead for good (410 Unregistered).
            retired.insert(old)
            if retired.count > Self.maxRememberedTokens, let any = retired.first(where: { $0 != old }) { retired.remove(any) }
            if let device = devices.removeValue(forKey: old) { device.connection.close() }
            log("apns: token \(TokenText.redact(old)) retired, replaced by \(TokenText.redact(hello.token))")
        }
        retired.remove(hello.token)
        devices[hello.token] = Device(connection: connection, topic: hello.topic, environment: hello.environment)
        remember(hello.token, (hello.topic, hello.environment))
        log("apns: device \(TokenText.redact(hello.token)) online (\(hello.topic), \(hello.environment.rawValue))")
        emit(
            WakeEvent(
                "device_connected",
                [
                    ("token", .string(TokenText.redact(hello.token))), ("topic", .string(hello.topic)),
                    ("environment", .string(hello.environment.rawValue)),
                ]))
        guard var model = models[hello.token] else { return }
        let action = model.deviceCameOnline(now: nowMs)
        models[hello.token] = model
        switch action {
        case .deliver(let push, let afterMs):
            if let held = stored.removeValue(forKey: push) {
                storedToken[push] = nil
                deliver(held.line, to: hello.token, afterMs: afterMs)
            }
        case .drop(let push):
            stored[push] = nil
            storedToken[push] = nil
            log("apns: stored push for \(TokenText.redact(hello.token)) expired")
        case .reject, .store, .lose, .none:
            break
        }
    }

    package struct DeviceHello: Sendable, Hashable {
        package var token: String
        package var topic: String
        package var environment: APNsEnvironment
        /// The token this one replaces (PushKit rotation), if any.
        package var replaces: String? = nil
    }

    package struct HelloError: Error {
        package let message: String
    }

    /// A device's first line (package: the fuzz target reads hellos through it).
    package static func parseHello(_ bytes: [UInt8]) -> Result<DeviceHello, HelloError> {
        guard let json = try? LineJSON.parse(bytes), case .object = json else {
            return .failure(HelloError(message: "hello is not a JSON object"))
        }
        guard case .string(let rawToken)? = json["token"], let token = TokenText.normalized(rawToken) else {
            return .failure(HelloError(message: "token must be hex, even length, 16-512 digits"))
        }
        guard case .string(let topic)? = json["topic"], topic.hasSuffix(".voip"), topic.count > 5 else {
            return .failure(HelloError(message: "topic must be <bundle id>.voip"))
        }
        guard case .string(let env)? = json["environment"], let environment = APNsEnvironment(rawValue: env) else {
            return .failure(HelloError(message: "environment must be sandbox or production"))
        }
        var replaces: String?
        if let value = json["replaces"] {
            guard case .string(let raw) = value, let old = TokenText.normalized(raw) else {
                return .failure(HelloError(message: "replaces must be a token: hex, even length, 16-512 digits"))
            }
            replaces = old
        }
        return .success(DeviceHello(token: token, topic: topic, environment: environment, replaces: replaces))
    }
}

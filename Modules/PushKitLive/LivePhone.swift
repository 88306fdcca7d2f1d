import CallSession
import Media
import PushKitEmu
import SIPCore
import SIPDialog

/// The live phone: a real SIP user agent (``LiveSIPStack`` + CallSession `Call`) inside an
/// emulated iPhone whose app state, lock and network the scenario controls, with the same
/// ``PushClientPolicy`` as virtual mode as its app code, judged by the same ``RuleChecker``.
///
/// Every real event (push line from the APNs emulator, INVITE, CANCEL, ack response, REGISTER
/// result, answer tap, timer) becomes the policy callback of virtual mode; the ``ClientOp``s it
/// records are checked in order, then executed for real: ack and token requests → HTTP to the
/// gateway, REGISTER → `LineRegistration`, report/update/end/fulfil → the emulated CallKit
/// below, claim → 180 Ringing, 200 OK / 603 → the `Call`. Files: this one (device and process
/// life cycle, pushes), `LivePhone+Ops.swift` (ops and CallKit), `LivePhone+SIP.swift` (SIP).
public actor LivePhone<Policy: PushClientPolicy> {
    /// The device and line; `token` changes when PushKit rotates it (``rotateToken()``).
    var config: LivePhoneConfig
    /// The clock of the phone's policy timers: the policy's own (`startTimer`), the emulated
    /// CallKit deadlines (placeholder, answer action), the user's planned taps and the launch
    /// delay. `ContinuousClock` in live runs; tests pass a `TestClock` (D4).
    let clock: any Clock<Duration>
    /// Timers armed with ``later(_:_:)`` whose body has not run yet (tests wait for 0).
    var pendingTimers = 0
    let timeline: LiveTimeline
    let directory: CallDirectory
    let pristine: Policy
    var policy: Policy
    /// The app opens sealed pushes with real AES-256-GCM, as the gateway seals.
    var ctx = ClientContext(sealing: CallSealBox())
    /// The gateways the phone joined (one: the run's, with `--sealed`) and their call keys.
    let keychain: CallKeychain
    /// The phone's verdict on each sealed push (index = push), nil for a clear one.
    var sealVerdicts: [SealVerdict?] = []
    /// Violations so far (same checker as virtual mode).
    public internal(set) var checker: RuleChecker
    var flushed = 0

    // Device.
    var app: AppState = .killed
    var locked = false
    var online = false
    var strikes = 0
    var blackout = false
    var generation = 0
    var device: APNsDeviceConnection?
    var launchingUntil: Int64 = -1
    /// Delivery draws (APNs delay, loss, launch): seeded, so a field run replays.
    var delivery: SplitMix64
    /// The client process broke the client protocol: the app is dead, the run should stop.
    public internal(set) var clientFault: ClientFault?

    // Process (gone when killed).
    var sip: LiveSIPStack?
    var registered = false
    var sipCalls: [Int32: Call<ContinuousClock>] = [:]
    var okSent: Set<Int32> = []

    // Emulated CallKit and bookkeeping.
    /// The emulated CallKit provider's calls (PushKitEmu's ``CallKitCall``, as in virtual time).
    var callkit: [CallKitCall] = []
    var pushes: [VoIPPush] = []
    var pushKeys: [String] = []
    var plans: [Int32: UserPlan] = [:]
    var declinedInGeneration: [Int32: Int] = [:]
    var leftFlagged: Set<Int32> = []
    var ackedCalls: Set<Int32> = []
    /// Audio the phone heard (two-way audio check), per call.
    public internal(set) var recordings: [Int32: RecordingSink] = [:]
    /// Serial queue of real IO, in the order the ops asked for it.
    let io: AsyncStream<@Sendable () async -> Void>.Continuation
    var tasks: [Task<Void, Never>] = []

    public init(
        config: LivePhoneConfig, policy: Policy, timeline: LiveTimeline, directory: CallDirectory,
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.config = config
        self.clock = clock
        self.timeline = timeline
        self.directory = directory
        pristine = policy
        self.policy = policy
        checker = RuleChecker(settings: config.settings)
        keychain = config.sealing?.keychain ?? CallKeychain()
        delivery = SplitMix64(seed: config.deliverySeed ^ 0xA5A5_5A5A_D00D_F00D)
        let (stream, feed) = AsyncStream.makeStream(of: (@Sendable () async -> Void).self)
        io = feed
        tasks.append(
            Task {
                for await work in stream { await work() }
            })
    }

    /// Stops everything the phone runs (end of scenario): calls hung up, stack stopped, the
    /// app's process (if it has one) killed.
    public func shutdown() async {
        endAppProcess(reason: "end_of_run")
        for call in sipCalls.values { await call.hangUp() }
        sipCalls.removeAll()
        if let sip { await sip.shutdown(within: .milliseconds(500)) }
        sip = nil
        device?.close()
        device = nil
        io.finish()
        for task in tasks { task.cancel() }
    }

    var now: Int64 { timeline.now }

    func record(_ event: TimelineEvent) { timeline.record(event) }

    func flush() {
        while flushed < checker.violations.count {
            timeline.record(.emu(.violation(checker.violations[flushed])), at: checker.violations[flushed].t)
            flushed += 1
        }
    }

    var appRunning: Bool { app == .foreground || app == .background }

    func beginCallback() {
        ctx.begin(now: now, locked: locked, online: online, appState: app)
    }

    // MARK: Scenario controls

    /// Initial device state (before t = 0 of the timeline matters): app state, lock, network.
    /// A foreground/background app is launched and registers; background then loses its flow.
    public func setUp(app state: AppState, locked: Bool, online: Bool) async throws(LiveError) {
        self.locked = locked
        if online { try await goOnline(notify: false) }
        switch state {
        case .killed:
            app = .killed
        case .suspended:
            startProcess(as: .background)
            app = .suspended
        case .foreground, .background:
            startProcess(as: .foreground)
            if !registered { try await waitRegistered(timeoutMs: 5_000) }
            if state == .background {
                app = .background
                await loseFlow()
            }
        }
    }

    /// The device loses the network: APNs connection and SIP transports close.
    public func goOffline() async {
        guard online else { return }
        online = false
        record(.connectivity(online: false))
        device?.close()
        device = nil
        await loseFlow()
        if appRunning {
            beginCallback()
            policy.connectivityChanged(online: false, &ctx)
            applyOps()
        }
    }

    /// The device is back online: APNs connection reopened (pushes with expiration 0 sent
    /// meanwhile are gone), the app told.
    public func goOnline(notify: Bool = true) async throws(LiveError) {
        guard !online else { return }
        let connection = try await APNsDeviceConnection.open(config)
        online = true
        device = connection
        if notify { record(.connectivity(online: true)) }
        listen(to: connection)
        if notify && appRunning {
            beginCallback()
            policy.connectivityChanged(online: true, &ctx)
            applyOps()
        }
    }

    /// PushKit rotates the device's token: the APNs connection is re-announced with the new token
    /// (the emulator retires the old one: a push to it gets 410 Unregistered), and a running app
    /// is told (`didUpdatePushToken`), so its policy can upload the new token; a suspended or
    /// killed app hears of it at its next launch, as on iOS. The new token is derived from the
    /// old one (runs stay reproducible).
    public func rotateToken() async throws(LiveError) {
        let old = config.token
        var rng = SplitMix64(seed: UInt64(old.fingerprint) &+ UInt64(generation) &+ 0x9E37_79B9)
        config.token = PushToken(using: &rng)
        record(.tokenIssued(token: config.token))
        if online {
            device?.close()
            device = try await APNsDeviceConnection.open(config, replacing: old.rawHexForAPNsRequestOnly)
            listen(to: device!)
        }
        if appRunning {
            beginCallback()
            policy.didUpdatePushToken(&ctx)
            applyOps()
        }
    }

    /// Pushes that arrive on `connection` go to ``pushArrived(_:)``.
    private func listen(to connection: APNsDeviceConnection) {
        tasks.append(
            Task { [weak self] in
                for await push in connection.pushes { await self?.pushReceived(push) }
            })
    }

    /// The app is killed (swiped away / by iOS): no process state, flow gone without unregister.
    public func kill() async {
        record(.appState(.killed))
        app = .killed
        await processDied()
    }

    /// Waits until the current process is registered.
    public func waitRegistered(timeoutMs: Int64) async throws(LiveError) {
        let deadline = now + timeoutMs
        while !registered {
            if now > deadline { throw LiveError(.infrastructure, "the phone did not register within \(timeoutMs) ms") }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Whether the phone's SIP stack is registered now.
    public var isRegistered: Bool { registered }

    // MARK: Pushes

    /// A push line from the gateway's APNs emulator: the device's share of APNs delivery first —
    /// loss and an extra delay drawn from ``LivePhoneConfig/apnsDelay`` — then iOS handles it.
    func pushReceived(_ delivered: DevicePush) {
        let lost =
            config.apnsLossPercent > 0
            && Double(delivery.next() >> 11) / 9_007_199_254_740_992 * 100 < config.apnsLossPercent
        let delay = config.apnsDelay.sample(using: &delivery)
        if lost {
            timeline.record(.live("apns_lost", [("apns_id", .text(delivered.apnsID))]))
            return
        }
        guard delay > 0 else {
            pushArrived(delivered, delayMs: 0)
            return
        }
        later(delay) { $0.pushArrived(delivered, delayMs: delay) }
    }

    func pushArrived(_ delivered: DevicePush, delayMs: Int64) {
        let p = Int32(pushes.count)
        let call = delivered.callID.map { directory.index(of: $0) } ?? -1
        let readable = delivered.pushID != nil && delivered.pushType == "voip"
        let sealed = config.sealing?.sealedPush(delivered, wallNowMs: LiveSealing.wallNowMs(), timelineNowMs: now)
        let push = VoIPPush(
            pushID: p, call: call, content: readable ? .call : .unreadable,
            origin: delivered.platform == .android || delivered.topic == config.topic ? .known : .unknown, sentAt: now,
            mustReport: nil, sealed: sealed)
        pushes.append(push)
        sealVerdicts.append(nil)
        pushKeys.append(delivered.pushID ?? "")
        record(.apnsDelivered(push: p, ageMs: delayMs))
        if blackout {
            record(.pushSuppressed(push: p))
            return
        }
        var delay: Int64 = 0
        if !appRunning {
            let from = app
            record(.appLaunch(from: from, push: p))
            delay = (from == .killed ? config.launchFromKilled : config.launchFromSuspended).sample(using: &delivery)
            timeline.record(.live("launch_delay", [("push_id", .int(p)), ("ms", .int(delay))]))
        }
        if delay <= 0 {
            runHandler(p)
        } else {
            let gen = generation
            later(delay) { $0.runHandler(p, expectedGeneration: gen) }
        }
    }

    func runHandler(_ p: Int32, expectedGeneration: Int? = nil) {
        if let expectedGeneration, expectedGeneration != generation, appRunning { return }
        if !appRunning {
            if app == .killed { startProcess(as: .background) } else { app = .background }
        }
        let push = pushes[Int(p)]
        record(.handlerStart(push: p))
        // The phone's own verdict on a sealed push (as virtual mode's Simulation.runHandler):
        // joined gateway, opens for this call ID, not late.
        var verdict: SealVerdict?
        if let sealed = push.sealed {
            let v = keychain.judge(sealed, now: now, sealing: CallSealBox())
            sealVerdicts[Int(p)] = v
            record(.sealCheck(push: p, verdict: v))
            verdict = v
        }
        beginCallback()
        policy.didReceiveIncomingPush(push, &ctx)
        let ops = ctx.ops
        let reported = ops.contains { if case .reportNewIncomingCall = $0 { true } else { false } }
        applyOps()
        guard clientFault == nil else { return }
        let killed = checker.handlerReturned(push, ops: ops, t: now)
        record(.handlerReturn(push: p, reported: reported))
        if let verdict, !verdict.trusted {
            let acked = ops.contains { if case .ackPush(pushID: p) = $0 { true } else { false } }
            checker.untrustedSealedPushHandled(
                push, verdict: verdict, acked: acked, stillRinging: activeCallKit(push: p), t: now)
        } else {
            checker.pushHandled(push, deliveredAt: now, stillRinging: activeCallKit(push: p))
        }
        flush()
        guard killed else { return }
        strikes += 1
        record(.appKilled(strikes: strikes))
        app = .killed
        let dying = Task { await self.processDied() }
        tasks.append(dying)
        if checker.strikeCounted(strikes, t: now) {
            blackout = true
            record(.blackout(strikes: strikes))
        }
        flush()
    }

    func activeCallKit(push: Int32) -> Int32? {
        callkit.indices.first { callkit[$0].active && callkit[$0].push == push }.map(Int32.init)
    }

    func activeCallKit(call: Int32) -> Int32? {
        guard call >= 0 else { return nil }
        return callkit.indices.first { callkit[$0].active && callkit[$0].call == call }.map(Int32.init)
    }

    /// The gateway answered the push-ack.
    func ackResponded(_ p: Int32, _ response: GatewayClient.Response?, generation gen: Int) {
        guard gen == generation, appRunning, online else { return }
        guard let response else { return }
        let active = Self.callActive(response)
        record(.ackResponse(push: p, callActive: active))
        beginCallback()
        policy.didReceiveAckResponse(pushID: p, callActive: active, &ctx)
        applyOps()
        if !active { checkCallerLeft(pushes[Int(p)].call) }
        flush()
    }

    /// Whether the ack response says the call is still up: `call_active` (or `active`) when
    /// present, else 404/410 = gone, other 2xx = up.
    static func callActive(_ response: GatewayClient.Response) -> Bool {
        if let json = response.json {
            for key in ["call_active", "active"] { if let b = json[key]?.boolValue { return b } }
            if let status = json["status"]?.stringValue, ["gone", "cancelled", "canceled", "ended"].contains(status) {
                return false
            }
        }
        if response.status == 404 || response.status == 410 { return false }
        return (200..<300).contains(response.status)
    }

    /// R5: once the phone knows the caller left, nothing for that call may still ring.
    func checkCallerLeft(_ c: Int32) {
        guard c >= 0, !leftFlagged.contains(c), let uuid = activeCallKit(call: c) else { return }
        leftFlagged.insert(c)
        let push = pushes.firstIndex { $0.call == c }.map(Int32.init) ?? -1
        checker.record(Violation(.callerLeftStillRinging, t: now, call: c, push: push, uuid: uuid))
    }

    /// The runner tells the checker the caller was failed over (WAKE bound).
    public func failedOver(call: Int32, reason: FailoverReason, afterMs: Int64) {
        checker.failover(reason, call: call, afterMs: afterMs, t: now)
        flush()
    }

    /// Whether this phone ever acked a push for `call`.
    public func acked(call: Int32) -> Bool { ackedCalls.contains(call) }

    /// The violations found.
    public var violations: [Violation] { checker.violations }
}

/// The discrete-event simulation: phone, APNs, server and the client policy under test, in
/// virtual time (ms), checked by the ``RuleChecker`` at every step.
///
/// Generic over the policy and the timeline sink so the fuzz hot path is fully specialised: one
/// binary heap of plain enum events, no per-event class, closure or existential. Deterministic:
/// same scenario + seed → same timeline.
public struct Simulation<Policy: PushClientPolicy, Sink: TimelineSink>: Sendable {
    /// The scenario being run.
    public let scenario: Scenario
    let settings: EmulatorSettings
    /// Virtual time now (ms).
    public private(set) var now: Int64 = 0
    var queue = EventQueue<SimEvent>(capacity: 64)
    /// The device.
    public internal(set) var phone: PhoneModel
    var apns: APNsModel
    let pristinePolicy: Policy
    var policy: Policy
    var processGeneration: Int32 = 0
    var ctx: ClientContext
    /// The gateway's sealing and the app's (``SealBox``); the phone's keychain; the draws for
    /// call keys and nonces (separate from `rng`, so a seed's tokens do not depend on sealing).
    let sealing: any SealBox
    var keychain = CallKeychain()
    var sealRNG: SplitMix64
    /// The phone's verdict on each sealed push once its handler ran (nil: clear, or not yet run).
    var sealVerdicts: [SealVerdict?] = []
    /// The process generation that was last given the call keys.
    var keysGeneration: Int32 = -1
    /// ``finish()`` ran.
    var finished = false
    /// The rule checker with the violations found so far.
    public internal(set) var checker: RuleChecker
    var flushedViolations = 0
    /// The timeline.
    public internal(set) var sink: Sink
    var calls: [ServerCall] = []
    var pushes: [VoIPPush] = []
    var callkit: [CallKitCall] = []
    var uploads: [PushToken] = []
    var serverToken: PushToken?
    var serverTokenEnvironment: APNsEnvironment
    var regExpiresAt: Int64 = -1
    var lastRegisterAt: Int64 = -1
    let expiry: ExpiryPolicy
    var rng: SplitMix64
    /// Draws of the delivery model (launch delays; APNs has its own): separate from `rng` so the
    /// tokens of a seed are the same under every delivery model.
    var delivery: SplitMix64
    /// When the handler for each push started (-1 = not yet): a failover for a push the app could
    /// not have acked in time is excused by delivery (``ScenarioReport/excused``).
    var handlerStartedAt: [Int64] = []
    let horizonMs: Int64
    /// Events taken off the queue so far.
    public private(set) var processed = 0
    /// The client broke the client protocol (hung, exited, junk): the run stopped there.
    public internal(set) var clientFailure: ClientFault?

    /// A simulation of `scenario` driving `policy`, writing to `sink`; `seed` makes tokens and
    /// call keys; `sealing` is what the gateway seals with and the app opens with.
    public init(
        scenario: Scenario, policy: Policy, sink: Sink, seed: UInt64 = 1, sealing: any SealBox = SymbolicSealBox()
    ) {
        self.scenario = scenario
        self.sealing = sealing
        ctx = ClientContext(sealing: sealing)
        sealRNG = SplitMix64(seed: seed ^ 0x5EA1_ED00_CA11_0001)
        settings = scenario.settings
        rng = SplitMix64(seed: seed)
        delivery = SplitMix64(seed: seed ^ 0xA5A5_5A5A_D00D_F00D)
        let token = PushToken(using: &rng)
        phone = PhoneModel(setup: scenario.phone, token: token)
        apns = APNsModel(
            bundleID: scenario.server.bundleID, environment: scenario.server.apnsEnvironment,
            settings: scenario.settings, seed: seed ^ 0x0A9E_5DE1_1FE2_5EED)
        pristinePolicy = policy
        self.policy = policy
        checker = RuleChecker(settings: scenario.settings)
        self.sink = sink
        serverToken = scenario.phone.tokenOnServer ? token : nil
        serverTokenEnvironment = scenario.phone.environment
        expiry = ExpiryPolicy(
            floorSeconds: scenario.settings.expiryFloorSeconds,
            capSeconds: scenario.settings.expiryCapSeconds)
        if scenario.phone.registered { regExpiresAt = Int64(expiry.capSeconds) * 1_000 }
        var last: Int64 = 0
        for (i, step) in scenario.steps.enumerated() {
            queue.push(.step(Int32(i)), at: step.at)
            last = max(last, step.at)
        }
        horizonMs = last + 60_000
        if scenario.server.sealed {
            let key = SealedGateway.key(using: &sealRNG)
            keychain.join(SealedGateway.mainID, key: key, sealing: sealing)
            queue.push(.grantExpires(0), at: keychain.gateways[0].grant.expiresMs)
        }
        calls.reserveCapacity(4)
        pushes.reserveCapacity(8)
        callkit.reserveCapacity(8)
    }

    /// Runs until nothing is pending or the horizon (last step + 60 s) passes.
    public mutating func run() {
        while step() {}
    }

    /// Handles the next event; `false` when the run is over (nothing pending, past the horizon,
    /// or the client broke the protocol). `run` is a loop over it; a caller that prints the
    /// timeline as it grows (`astra-pushsim run`) steps itself.
    @inline(__always) public mutating func step() -> Bool {
        guard clientFailure == nil, let (t, event) = queue.pop(), t <= horizonMs else {
            finish()
            return false
        }
        now = t
        processed &+= 1
        handle(event)
        flushViolations()
        return true
    }

    /// The client's own strings for the CallKit UUIDs it reported (client processes name their
    /// UUIDs; an in-process policy has none): output shows them instead of the emulator's integers.
    public var uuidNames: [Int32: String] { ctx.uuidNames }

    /// Per server call, whether a failover was excused by delivery: the ack window ran out before
    /// the app's push handler could have acked (the push was lost, late, or the app still
    /// launching) — the field's fault, not the client's.
    public var excused: [Bool] { calls.map(\.excusedByDelivery) }

    /// Final outcome of every server call, in call order.
    public var outcomes: [CallOutcome] {
        calls.map { call in
            switch call.machine.state {
            case .answered: .connected
            case .failedOver: .failedOver
            case .cancelled, .cancelledNoticeOwed: .cancelled
            case .idle, .qualifyingDirect, .ringingDirect, .awaitingAck, .awaitingRegister, .qualifyingFresh,
                .inviteSent:
                .pending
            }
        }
    }

    /// The run is over: GRANT `grant_not_renewed` for every grant still owed a renewal.
    mutating func finish() {
        guard !finished else { return }
        finished = true
        guard clientFailure == nil else { return }
        for g in keychain.gateways.indices where keychain.updateGrant(g, { $0.flagNotRenewed() }) {
            checker.record(Violation(.grantNotRenewed, t: now))
        }
        flushViolations()
    }

    mutating func flushViolations() {
        while flushedViolations < checker.violations.count {
            sink.record(now, .violation(checker.violations[flushedViolations]))
            flushedViolations += 1
        }
    }

    @inline(__always) mutating func record(_ event: TimelineEvent) { sink.record(now, event) }

    @inline(__always) mutating func schedule(_ event: SimEvent, after ms: Int64) { queue.push(event, at: now + ms) }

    mutating func handle(_ event: SimEvent) {
        switch event {
        case .step(let i): runStep(scenario.steps[Int(i)])
        case .qualifyArrives(let c):
            if phone.sipReachable { schedule(.qualifyAnswered(c), after: settings.networkOneWayMs) }
        case .qualifyAnswered(let c):
            let action = calls[Int(c)].machine.qualifyAnswered()
            if action != .none { record(.qualifyOK(call: c)) }
            perform(action, call: c)
        case .qualifyTimeout(let c):
            let action = calls[Int(c)].machine.qualifyTimedOut(hasToken: canPush)
            if action != .none || calls[Int(c)].machine.state == .awaitingRegister {
                record(.qualifyTimeout(call: c))
            }
            perform(action, call: c)
        case .ackWindow(let c):
            let action = calls[Int(c)].machine.ackWindowExpired()
            if action != .none {
                record(.ackWindowExpired(call: c))
                let p = calls[Int(c)].push
                let started = p >= 0 && Int(p) < handlerStartedAt.count ? handlerStartedAt[Int(p)] : -1
                calls[Int(c)].excusedByDelivery = started < 0 || started > now - settings.networkOneWayMs
            }
            perform(action, call: c)
        case .registerWait(let c):
            let action = calls[Int(c)].machine.registerWaitExpired()
            if action != .none { record(.registerWaitExpired(call: c)) }
            perform(action, call: c)
        case .inviteTimeout(let c): perform(calls[Int(c)].machine.inviteTimedOut(), call: c)
        case .apnsDeliver(let p): apnsDelivered(p)
        case .handlerRun(let p): runHandler(p)
        case .ackArrives(let p): ackArrived(p)
        case .ackResponse(let p, let active): ackResponseArrived(p, active: active)
        case .registerArrives(let expires): registerArrived(expires: expires)
        case .registerResult(let ok): registerResultArrived(ok)
        case .tokenUploadArrives(let i):
            serverToken = uploads[Int(i)]
            serverTokenEnvironment = phone.environment
            record(.tokenUploaded(token: uploads[Int(i)]))
        case .tokenDeleteArrives:
            serverToken = nil
            record(.tokenDeleted)
        case .inviteArrives(let c): inviteArrived(c)
        case .cancelArrives(let c): cancelArrived(c)
        case .goneNoticeArrives(let c): goneNoticeArrived(c)
        case .okArrives(let c):
            let before = calls[Int(c)].machine.state
            _ = calls[Int(c)].machine.answered()
            if before != calls[Int(c)].machine.state {
                let tapped = calls[Int(c)].answerTappedAt
                record(.callConnected(call: c, answerDelayMs: tapped >= 0 ? now - tapped : -1))
            }
        case .userAnswer(let uuid): userAnswered(uuid)
        case .userDecline(let uuid): userDeclined(uuid)
        case .declineArrives(let c): perform(calls[Int(c)].machine.declined(), call: c)
        case .answerDeadline(let uuid): answerDeadline(uuid)
        case .placeholderDeadline(let uuid):
            let call = callkit[Int(uuid)]
            if call.active && call.invite < 0 {
                checker.record(Violation(.placeholderNotEnded, t: now, call: call.call, push: call.push, uuid: uuid))
            }
        case .grantExpires(let g): grantExpired(Int(g))
        case .policyTimer(let timer, let generation):
            guard generation == processGeneration, phone.appRunning else { return }
            beginCallback()
            policy.timerFired(timer, &ctx)
            applyOps()
        }
    }

    /// Whether any CallKit call for server call `call` still rings or runs; returns its UUID.
    func activeCallKitCall(call: Int32) -> Int32? {
        guard call >= 0 else { return nil }
        for i in callkit.indices where callkit[i].active && callkit[i].call == call { return Int32(i) }
        return nil
    }

    /// The UUID of an active CallKit call created by push `push`.
    func activeCallKitCall(push: Int32) -> Int32? {
        for i in callkit.indices where callkit[i].active && callkit[i].push == push { return Int32(i) }
        return nil
    }
}

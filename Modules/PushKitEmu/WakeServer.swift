/// What the wake decision's shell needs from the outside: in the simulation these are events in
/// virtual time; in live mode a SIP proxy/UA and an APNs client implement it.
public protocol WakeTransport: Sendable {
    /// Send OPTIONS to the endpoint's registered contact.
    func sendQualify(call: Int32) async
    /// Send (or release the held) INVITE to the registered contact.
    func sendInvite(call: Int32, direct: Bool) async
    /// Send the VoIP push (`apns-expiration: 0`, priority 10, caller + push-id); `nil` = accepted,
    /// or sent with the provider's answer to come (a refusal then arrives as
    /// ``WakeServer/pushRejected(_:)``).
    func sendPush(call: Int32) async -> APNsRejection?
    /// CANCEL the INVITE.
    func sendCancel(call: Int32) async
    /// Tell the woken phone's fresh contact that the call is gone (option `gone_notice`).
    func sendGoneNotice(call: Int32) async
    /// The call moved to the next target.
    func failedOver(call: Int32, reason: FailoverReason) async
}

/// The actor shell around ``WakeDecision`` for real time: owns one machine per call, executes
/// its actions through a ``WakeTransport`` and arms its timers on an injected clock.
///
/// One timer per call at a time (qualify, ack window, register wait, ring timeout); a new one
/// cancels the old, so a `TestClock` sees exactly the pending deadline.
public actor WakeServer<C: Clock<Duration>, T: WakeTransport> {
    private enum Timer: Sendable { case qualify, ack, register, invite }

    private let settings: EmulatorSettings
    private let clock: C
    private let transport: T
    private var machines: [Int32: WakeDecision] = [:]
    private var hasToken: [Int32: Bool] = [:]
    private var timers: [Int32: Task<Void, Never>] = [:]
    /// When each call's register wait ends (set by the ack), so a failed fresh qualify can go
    /// back to waiting for another REGISTER under the same deadline.
    private var registerDeadlines: [Int32: C.Instant] = [:]

    private let goneNotice: Bool

    public init(settings: EmulatorSettings = EmulatorSettings(), goneNotice: Bool = false, clock: C, transport: T) {
        self.settings = settings
        self.goneNotice = goneNotice
        self.clock = clock
        self.transport = transport
    }

    /// The state of `call`'s wake decision.
    public func state(of call: Int32) -> WakeDecision.State? { machines[call]?.state }

    /// How many calls the server keeps a machine for (a long run must keep this flat).
    public var trackedCalls: Int { machines.count }

    /// Drops everything kept for `call` — its machine, timer and deadlines — once the shell is
    /// done with it (the live gateway calls this when the call's SIP state is freed).
    public func forget(_ call: Int32) {
        disarm(call)
        machines[call] = nil
        hasToken[call] = nil
        registerDeadlines[call] = nil
    }

    /// A call for the endpoint arrives.
    public func incomingCall(_ call: Int32, registrationLive: Bool, hasToken: Bool) async {
        var machine = WakeDecision(goneNotice: goneNotice)
        let action = machine.start(registrationLive: registrationLive, hasToken: hasToken)
        machines[call] = machine
        self.hasToken[call] = hasToken
        await perform(action, call: call)
    }

    /// The contact answered OPTIONS.
    public func qualifyAnswered(_ call: Int32) async { await step(call) { $0.qualifyAnswered() } }
    /// The qualify got a final non-2xx answer: acted on at once (no wait for the qualify timer).
    public func qualifyFailed(_ call: Int32) async {
        let hasToken = self.hasToken[call] ?? false
        await step(call) { $0.qualifyFailed(hasToken: hasToken) }
    }
    /// `POST /voip-push-ack` for this call's push-id arrived.
    public func ackReceived(_ call: Int32) async { await step(call) { $0.ackReceived() } }
    /// A fresh REGISTER arrived for the endpoint.
    public func registerReceived(_ call: Int32) async { await step(call) { $0.registerReceived() } }
    /// The phone answered (200 OK).
    public func answered(_ call: Int32) async { await step(call) { $0.answered() } }
    /// The provider refused the push after ``WakeTransport/sendPush(call:)`` returned: a transport
    /// whose provider answers in its own time (HTTP/2 to APNs or FCM) reports it here, so a slow
    /// provider never holds the caller of `sendPush`. Ignored unless the push awaits its ack.
    public func pushRejected(_ call: Int32) async { await step(call) { $0.pushRejected() } }
    /// The caller hung up.
    public func callerLeft(_ call: Int32) async { await step(call) { $0.callerLeft() } }

    private func step(_ call: Int32, _ event: (inout WakeDecision) -> WakeAction) async {
        guard var machine = machines[call] else { return }
        let before = machine.state
        let action = event(&machine)
        machines[call] = machine
        if before == .qualifyingFresh, machine.state == .awaitingRegister, let deadline = registerDeadlines[call] {
            // The fresh contact did not qualify: the register wait (one timer per call) resumes.
            arm(.register, after: clock.now.duration(to: deadline), call: call)
        }
        await perform(action, call: call)
    }

    private func fired(_ timer: Timer, call: Int32) async {
        timers[call] = nil
        let hasToken = self.hasToken[call] ?? false
        switch timer {
        case .qualify: await step(call) { $0.qualifyTimedOut(hasToken: hasToken) }
        case .ack: await step(call) { $0.ackWindowExpired() }
        case .register: await step(call) { $0.registerWaitExpired() }
        case .invite: await step(call) { $0.inviteTimedOut() }
        }
    }

    private func arm(_ timer: Timer, after ms: Int64, call: Int32) {
        arm(timer, after: .milliseconds(ms), call: call)
    }

    private func arm(_ timer: Timer, after delay: Duration, call: Int32) {
        timers[call]?.cancel()
        let clock = clock
        timers[call] = Task {
            do { try await clock.sleep(for: max(delay, .zero)) } catch { return }
            await self.fired(timer, call: call)
        }
    }

    private func disarm(_ call: Int32) {
        timers[call]?.cancel()
        timers[call] = nil
    }

    private func perform(_ action: WakeAction, call: Int32) async {
        switch action {
        case .none:
            break
        case .qualify:
            arm(.qualify, after: settings.qualifyTimeoutMs, call: call)
            await transport.sendQualify(call: call)
        case .sendInvite(let direct):
            arm(.invite, after: settings.inviteTimeoutMs, call: call)
            await transport.sendInvite(call: call, direct: direct)
        case .sendPush:
            arm(.ack, after: settings.ackWindowMs, call: call)
            if await transport.sendPush(call: call) != nil { await step(call) { $0.pushRejected() } }
        case .awaitRegister:
            arm(.register, after: settings.registerWaitMs, call: call)
            registerDeadlines[call] = clock.now.advanced(by: .milliseconds(settings.registerWaitMs))
        case .failover(let reason):
            disarm(call)
            await transport.failedOver(call: call, reason: reason)
        case .cancelAndFailover(let reason):
            disarm(call)
            await transport.sendCancel(call: call)
            await transport.failedOver(call: call, reason: reason)
        case .sendCancel:
            disarm(call)
            await transport.sendCancel(call: call)
        case .stop:
            // A gone notice owed (caller left while the woken phone registers) keeps the register
            // wait running: the notice goes out with a REGISTER within it, or not at all
            // (``WakeDecision/registerWaitExpired()`` → cancelled).
            if machines[call]?.state != .cancelledNoticeOwed { disarm(call) }
        case .sendGoneNotice:
            disarm(call)
            await transport.sendGoneNotice(call: call)
        }
        if machines[call]?.state == .answered { disarm(call) }
    }
}

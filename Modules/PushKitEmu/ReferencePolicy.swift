/// The shipped client policies: `correct`, `naive`, and any mix of known field bugs (``Faults``).
///
/// With no faults it follows every rule in docs/push-wake-rules.md. Each fault switches on one bug seen in
/// the field, so a test can break exactly one rule and show the emulator's verdict.
public struct ReferencePolicy: PushClientPolicy {
    /// Known field bugs, one per flag.
    public struct Faults: OptionSet, Sendable, Hashable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }

        /// REGISTER / fetch before `reportNewIncomingCall` in the push handler (R1).
        public static let networkBeforeReport = Faults(rawValue: 1 << 0)
        /// Report only after the REGISTER completes, i.e. after the handler returned (R1/R4).
        public static let reportAfterRegister = Faults(rawValue: 1 << 1)
        /// Return without reporting pushes it cannot use: unreadable, unknown origin, non-call (R1→R2).
        public static let dropOddPushes = Faults(rawValue: 1 << 2)
        /// Report odd pushes but leave them ringing (R5).
        public static let ringOddPushes = Faults(rawValue: 1 << 3)
        /// No staleness check: ring a push that arrives late or was stored (R6).
        public static let ringStalePushes = Faults(rawValue: 1 << 4)
        /// The INVITE opens a second call beside the PushKit-created one (R5 duplicate; liblinphone).
        public static let secondCallForInvite = Faults(rawValue: 1 << 5)
        /// Fulfil the answer action before the INVITE/200 OK (R5).
        public static let fulfillAnswerEarly = Faults(rawValue: 1 << 6)
        /// No placeholder timeout: a placeholder without INVITE rings forever (R5).
        public static let noPlaceholderTimeout = Faults(rawValue: 1 << 7)
        /// Ignore "caller left" (ack response `gone`, CANCEL) (R5).
        public static let ignoreCallerLeft = Faults(rawValue: 1 << 8)
        /// Keep SIP credentials `whenUnlocked`: REGISTER fails on a locked phone.
        public static let credentialsWhenUnlocked = Faults(rawValue: 1 << 9)
        /// Upload the token once per launch and ignore PushKit's rotations while running: the
        /// server keeps pushing to a retired token (APNs 410), so the phone is never woken.
        public static let ignoreTokenRotation = Faults(rawValue: 1 << 10)
        /// Trust every sealed push: show its caller and ring without checking the gateway hash,
        /// the blob or the end time (R5 `sealed_caller_shown`, `sealed_push_trusted`) — an app
        /// that decrypts with the keystream alone and never verifies the tag or the call ID.
        public static let trustSealedPushes = Faults(rawValue: 1 << 11)
        /// Delete the token but keep the gateways' grants when iOS takes the token back (GRANT).
        public static let keepGrantsOnTokenLoss = Faults(rawValue: 1 << 12)
        /// Never renew the gateways' call grants: they run out and the gateway stops pushing (GRANT
        /// `grant_not_renewed`).
        public static let neverRenewGrants = Faults(rawValue: 1 << 13)
        /// Renew every call grant at every launch, however much is left (GRANT `grant_storm` when
        /// two launches fall within 15 minutes).
        public static let renewGrantsEveryLaunch = Faults(rawValue: 1 << 14)
        /// Ask 30-day grants, past the gateway's 15-day cap (GRANT `grant_too_long`).
        public static let askLongGrants = Faults(rawValue: 1 << 15)

        /// The field bugs docs/push-wake-rules.md names: networking before reporting, the
        /// PushKit-session duplicate with its ~10 s answer delay, ringing stored pushes, dropping
        /// unusable pushes, ignoring a CANCEL before wake, no placeholder timeout.
        public static let naive: Faults = [
            .networkBeforeReport, .dropOddPushes, .ringStalePushes, .secondCallForInvite, .fulfillAnswerEarly,
            .noPlaceholderTimeout, .ignoreCallerLeft, .trustSealedPushes, .keepGrantsOnTokenLoss,
            .neverRenewGrants,
        ]
    }

    /// One CallKit call the client tracks.
    struct Tracked: Sendable, Hashable {
        var uuid: Int32
        var pushID: Int32
        /// The Call-ID the push carried (docs/push-wake-rules.md R5), or -1.
        var callID: Int32 = -1
        var invite: Int32 = -1
        var shadowOf: Int32 = -1
        var answerPending = false
        var ended = false
        var declined = false
    }

    public let name: String
    /// The bugs switched on.
    public let faults: Faults
    let placeholderTimeoutMs: Int64
    let staleAfterMs: Int64
    let mergeDelayMs: Int64
    var calls: [Tracked] = []
    /// This process already uploaded a token (``Faults/ignoreTokenRotation``).
    var tokenUploaded = false
    /// The call keys the app read at launch.
    var keys: [GatewayCallKey] = []

    /// A policy with `faults` switched on, timing taken from `settings`.
    public init(name: String? = nil, faults: Faults, settings: EmulatorSettings = EmulatorSettings()) {
        self.faults = faults
        self.name = name ?? (faults.isEmpty ? "correct" : faults == .naive ? "naive" : "faulty")
        placeholderTimeoutMs = settings.placeholderTimeoutMs
        staleAfterMs = settings.staleAfterMs
        mergeDelayMs = settings.naiveMergeDelayMs
        calls.reserveCapacity(8)
    }

    /// The policy that follows every rule.
    public static func correct(_ settings: EmulatorSettings = EmulatorSettings()) -> ReferencePolicy {
        ReferencePolicy(faults: [], settings: settings)
    }

    /// The policy with the field bugs.
    public static func naive(_ settings: EmulatorSettings = EmulatorSettings()) -> ReferencePolicy {
        ReferencePolicy(faults: .naive, settings: settings)
    }

    var protection: KeychainProtection {
        faults.contains(.credentialsWhenUnlocked) ? .whenUnlocked : .afterFirstUnlock
    }

    func index(uuid: Int32) -> Int? { calls.firstIndex { $0.uuid == uuid } }

    public mutating func launched(_ ctx: inout ClientContext) {
        calls.removeAll(keepingCapacity: true)
        tokenUploaded = false
        if ctx.appState == .foreground { ctx.perform(.register(protection: protection)) }
    }

    /// The keys, read at launch, with each gateway's grant expiry: the app's check-in. It sends a
    /// new 14-day grant once less than 7 days remain (``CallGrant``); a fresh launch right after
    /// a renewal sees 14 days and sends nothing, so the 15-minute storm rule holds.
    public mutating func didReceiveCallKeys(_ keys: [GatewayCallKey], _ ctx: inout ClientContext) {
        self.keys = keys
        guard !keys.isEmpty, !faults.contains(.neverRenewGrants) else { return }
        let due = keys.contains { $0.grantExpiresMs >= 0 && $0.grantExpiresMs - ctx.now < CallGrant.renewBelowMs }
        guard due || faults.contains(.renewGrantsEveryLaunch) else { return }
        let lifetime = faults.contains(.askLongGrants) ? 30 * CallGrant.dayMs : CallGrant.askLifetimeMs
        ctx.perform(.renewGrant(lifetimeSeconds: Int32(lifetime / 1_000)))
    }

    /// Whether a sealed push is one the phone may trust: the hash names a gateway it holds a key
    /// for, the blob opens under that key for the push's call ID, and the earlier end time is ahead.
    func opens(_ sealed: SealedPush, _ ctx: ClientContext) -> Bool {
        guard let key = keys.first(where: { $0.gatewayHash == sealed.gatewayHash }),
            let plain = ctx.sealing.open(sealed.blob, key: key.key, callID: sealed.callID),
            let end = CallKeychain.sealedEnd(plain)
        else { return false }
        return ctx.now < min(end, sealed.endMs)
    }

    public mutating func didReceiveIncomingPush(_ push: VoIPPush, _ ctx: inout ClientContext) {
        let sealedOK = push.sealed.map { faults.contains(.trustSealedPushes) || opens($0, ctx) }
        let odd = push.content != .call || push.origin == .unknown || sealedOK == false
        let late = ctx.now - push.sentAt > staleAfterMs && !faults.contains(.ringStalePushes)
        if odd || late {
            if faults.contains(.dropOddPushes) { return }
            // R5: report it (R1), then end it at once.
            let uuid = ctx.newCallUUID()
            ctx.perform(.reportNewIncomingCall(uuid: uuid, pushID: push.pushID, invite: -1))
            if !faults.contains(.ringOddPushes) { ctx.perform(.reportCallEnded(uuid: uuid, reason: .failed)) }
            return
        }
        if faults.contains(.networkBeforeReport) {
            ctx.perform(.fetch)
            ctx.perform(.register(protection: protection))
        }
        ctx.perform(.ackPush(pushID: push.pushID))
        if faults.contains(.reportAfterRegister) {
            ctx.perform(.register(protection: protection))
            calls.append(Tracked(uuid: -1, pushID: push.pushID, callID: push.call))
            return
        }
        let uuid = ctx.newCallUUID()
        ctx.perform(.reportNewIncomingCall(uuid: uuid, pushID: push.pushID, invite: -1))
        // The caller of a sealed push that opened; a clear push names none until the INVITE.
        if sealedOK == true { ctx.perform(.showCaller(uuid: uuid)) }
        calls.append(Tracked(uuid: uuid, pushID: push.pushID, callID: push.call))
        if !faults.contains(.noPlaceholderTimeout) {
            ctx.perform(.startTimer(.placeholder(uuid: uuid), afterMs: placeholderTimeoutMs))
        }
        if !faults.contains(.networkBeforeReport) { ctx.perform(.register(protection: protection)) }
    }

    public mutating func didReceiveAckResponse(pushID: Int32, callActive: Bool, _ ctx: inout ClientContext) {
        guard !callActive, !faults.contains(.ignoreCallerLeft) else { return }
        for i in calls.indices where calls[i].pushID == pushID && !calls[i].ended && calls[i].uuid >= 0 {
            end(i, .remoteEnded, &ctx)
        }
    }

    public mutating func didReceiveCallGone(pushID: Int32, _ ctx: inout ClientContext) {
        didReceiveAckResponse(pushID: pushID, callActive: false, &ctx)
    }

    public mutating func didUpdatePushToken(_ ctx: inout ClientContext) {
        if faults.contains(.ignoreTokenRotation) && tokenUploaded { return }
        tokenUploaded = true
        ctx.perform(.uploadToken)
    }

    public mutating func didInvalidatePushToken(_ ctx: inout ClientContext) {
        ctx.perform(.deleteToken)
        // docs/adr/0153: each gateway drops the grant and key of a phone whose token is gone.
        if !keys.isEmpty && !faults.contains(.keepGrantsOnTokenLoss) { ctx.perform(.stopGrants) }
    }

    public mutating func registrationFinished(success: Bool, _ ctx: inout ClientContext) {
        guard faults.contains(.reportAfterRegister) else { return }
        for i in calls.indices where calls[i].uuid < 0 {
            let uuid = ctx.newCallUUID()
            calls[i].uuid = uuid
            ctx.perform(.reportNewIncomingCall(uuid: uuid, pushID: calls[i].pushID, invite: -1))
        }
    }

    public mutating func didReceiveInvite(_ invite: IncomingInvite, _ ctx: inout ClientContext) {
        // R5: claim by the push-id the INVITE carries. An INVITE without one is a direct ring: FIFO
        // matching (the weak fallback) would hand it a placeholder of another call.
        let match =
            invite.pushID < 0
            ? nil
            : calls.firstIndex {
                $0.pushID == invite.pushID && $0.invite < 0 && !$0.ended && $0.uuid >= 0
            }
        if let i = declinedMatch(invite), !faults.contains(.secondCallForInvite) {
            // R5: the user already declined this call on its placeholder: reject, do not ring again.
            calls[i].invite = invite.call
            ctx.perform(.sendDecline(call: invite.call))
            return
        }
        if let i = match, !faults.contains(.secondCallForInvite) {
            calls[i].invite = invite.call
            ctx.perform(.claimInvite(call: invite.call, uuid: calls[i].uuid))
            ctx.perform(.reportCallUpdated(uuid: calls[i].uuid))
            if calls[i].answerPending {
                ctx.perform(.sendOK(call: invite.call))
                ctx.perform(.fulfillAnswer(uuid: calls[i].uuid))
                calls[i].answerPending = false
            }
            return
        }
        // Direct ring, or the naive PushKit-session bug: a second call for the same INVITE.
        let uuid = ctx.newCallUUID()
        ctx.perform(.reportNewIncomingCall(uuid: uuid, pushID: -1, invite: invite.call))
        ctx.perform(.claimInvite(call: invite.call, uuid: uuid))
        var tracked = Tracked(uuid: uuid, pushID: -1, callID: invite.call)
        tracked.invite = invite.call
        if let i = match { tracked.shadowOf = calls[i].uuid }
        calls.append(tracked)
    }

    public mutating func didReceiveCancel(call: Int32, _ ctx: inout ClientContext) {
        guard !faults.contains(.ignoreCallerLeft) else { return }
        // Match by the INVITE it cancels, or by the Call-ID the push carried (INVITE never arrived).
        for i in calls.indices where (calls[i].invite == call || calls[i].callID == call) && !calls[i].ended {
            end(i, .remoteEnded, &ctx)
            if calls[i].shadowOf >= 0, let p = index(uuid: calls[i].shadowOf), !calls[p].ended {
                end(p, .remoteEnded, &ctx)
            }
        }
    }

    public mutating func performAnswerCallAction(uuid: Int32, _ ctx: inout ClientContext) {
        guard let i = index(uuid: uuid), !calls[i].ended else {
            ctx.perform(.failAnswer(uuid: uuid))
            return
        }
        if calls[i].invite >= 0 {
            ctx.perform(.sendOK(call: calls[i].invite))
            ctx.perform(.fulfillAnswer(uuid: uuid))
            return
        }
        // R5: answered before the INVITE: the action stays pending until the 200 OK is sent.
        calls[i].answerPending = true
        if faults.contains(.fulfillAnswerEarly) { ctx.perform(.fulfillAnswer(uuid: uuid)) }
        if faults.contains(.secondCallForInvite) {
            ctx.perform(.startTimer(.merge(uuid: uuid), afterMs: mergeDelayMs))
        }
    }

    public mutating func performEndCallAction(uuid: Int32, _ ctx: inout ClientContext) {
        guard let i = index(uuid: uuid), !calls[i].ended else { return }
        calls[i].ended = true
        calls[i].declined = true
        calls[i].answerPending = false
        if calls[i].invite >= 0 { ctx.perform(.sendDecline(call: calls[i].invite)) }
    }

    func declinedMatch(_ invite: IncomingInvite) -> Int? {
        guard invite.pushID >= 0 else { return nil }
        return calls.firstIndex { $0.pushID == invite.pushID && $0.declined && $0.invite < 0 }
    }

    public mutating func timerFired(_ timer: PolicyTimer, _ ctx: inout ClientContext) {
        switch timer {
        case .placeholder(let uuid):
            guard let i = index(uuid: uuid), calls[i].invite < 0, !calls[i].ended else { return }
            end(i, .failed, &ctx)
        case .merge(let uuid):
            guard let i = index(uuid: uuid), !calls[i].ended else { return }
            guard let s = calls.firstIndex(where: { $0.shadowOf == uuid && !$0.ended }) else {
                ctx.perform(.startTimer(.merge(uuid: uuid), afterMs: mergeDelayMs))
                return
            }
            // The naive merge: answer the INVITE session late, drop the duplicate.
            calls[i].invite = calls[s].invite
            calls[i].answerPending = false
            ctx.perform(.claimInvite(call: calls[s].invite, uuid: uuid))
            ctx.perform(.sendOK(call: calls[s].invite))
            calls[s].ended = true
            ctx.perform(.reportCallEnded(uuid: calls[s].uuid, reason: .answeredElsewhere))
        case .named:
            break  // never started by this policy
        }
    }

    public mutating func connectivityChanged(online: Bool, _ ctx: inout ClientContext) {
        if online && ctx.appState == .foreground { ctx.perform(.register(protection: protection)) }
    }

    mutating func end(_ i: Int, _ reason: EndReason, _ ctx: inout ClientContext) {
        if calls[i].answerPending {
            ctx.perform(.failAnswer(uuid: calls[i].uuid))
            calls[i].answerPending = false
        }
        calls[i].ended = true
        ctx.perform(.reportCallEnded(uuid: calls[i].uuid, reason: reason))
    }
}

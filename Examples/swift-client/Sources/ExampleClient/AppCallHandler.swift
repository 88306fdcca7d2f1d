import PushKitEmu

/// An app's incoming-call glue — the PushKit delegate, the CallKit provider delegate and the
/// SIP stack's INVITE/CANCEL handling — written against PushKitEmu's ``PushClientPolicy`` the way
/// it would be written in an iOS app: report every VoIP push to CallKit first, ack it, register,
/// and let the INVITE claim the call the push created.
///
/// ``Bug/secondCallForInvite`` switches on one classic field bug: the SIP layer reports its own
/// CallKit call for every INVITE instead of binding it to the push's placeholder (seen with
/// liblinphone: two calls ring, or the answer waits ~10 s). PushKitEmu flags it as R5
/// `duplicate_session`.
public struct AppCallHandler: PushClientPolicy {
    /// The one field bug this example can switch on.
    public enum Bug: Sendable {
        case none
        /// Every INVITE gets a CallKit call of its own (R5 duplicate session).
        case secondCallForInvite
    }

    /// One call CallKit shows.
    struct ShownCall: Sendable {
        var uuid: Int32
        /// The push that created it (-1: an INVITE did).
        var pushID: Int32
        /// The server call the push names; the INVITE's once claimed.
        var serverCall: Int32
        var claimedInvite: Int32 = -1
        var answerWaitsForInvite = false
        var declined = false
        var over = false
    }

    public let name: String
    let bug: Bug
    let placeholderTimeoutMs: Int64
    let staleAfterMs: Int64
    var shown: [ShownCall] = []
    /// The call keys read from the keychain at launch: gateway hash → 32-byte key.
    var callKeys: [String: [UInt8]] = [:]

    /// The handler with the timeouts the emulator judges by (a real app has its own constants).
    public init(settings: EmulatorSettings = EmulatorSettings(), bug: Bug = .none) {
        self.bug = bug
        name = bug == .none ? "swift-example" : "swift-example-buggy"
        placeholderTimeoutMs = settings.placeholderTimeoutMs
        staleAfterMs = settings.staleAfterMs
    }

    // MARK: App life cycle and PushKit

    public mutating func launched(_ ctx: inout ClientContext) {
        shown = []
        if ctx.appState == .foreground { ctx.perform(.register(protection: .afterFirstUnlock)) }
    }

    public mutating func didReceiveCallKeys(_ keys: [GatewayCallKey], _ ctx: inout ClientContext) {
        callKeys = Dictionary(keys.map { ($0.gatewayHash, $0.key) }, uniquingKeysWith: { a, _ in a })
        // The launch is the check-in: once less than 7 days remain on a gateway's call grant, send
        // a new 14-day one (a relaunch right after sees 14 days: no grant storm).
        let due = keys.contains { $0.grantExpiresMs >= 0 && $0.grantExpiresMs - ctx.now < CallGrant.renewBelowMs }
        if due { ctx.perform(.renewGrant(lifetimeSeconds: Int32(CallGrant.askLifetimeMs / 1_000))) }
    }

    /// Whether a sealed push may be trusted: its gateway hash is one we hold a key for, the blob
    /// opens under that key for the push's call ID, and the earlier end time is still ahead.
    func opens(_ sealed: SealedPush, _ ctx: ClientContext) -> Bool {
        guard let key = callKeys[sealed.gatewayHash],
            let caller = ctx.sealing.open(sealed.blob, key: key, callID: sealed.callID),
            let end = CallKeychain.sealedEnd(caller)
        else { return false }
        return ctx.now < min(end, sealed.endMs)
    }

    public mutating func didReceiveIncomingPush(_ push: VoIPPush, _ ctx: inout ClientContext) {
        let uuid = ctx.newCallUUID()
        // CallKit first, always (iOS 13+): the handler must not return before this.
        ctx.perform(.reportNewIncomingCall(uuid: uuid, pushID: push.pushID, invite: -1))
        let usable = push.content == .call && push.origin == .known
        let fresh = ctx.now - push.sentAt <= staleAfterMs
        // A sealed push is never trusted on its own: a failed check is the app's name, ended.
        let sealedOK = push.sealed.map { opens($0, ctx) } ?? true
        guard usable && fresh && sealedOK else {
            // Unreadable, foreign, unverified or too late to be a live call: shown, then ended at once.
            ctx.perform(.reportCallEnded(uuid: uuid, reason: .failed))
            return
        }
        if push.sealed != nil { ctx.perform(.showCaller(uuid: uuid)) }
        shown.append(ShownCall(uuid: uuid, pushID: push.pushID, serverCall: push.call))
        ctx.perform(.ackPush(pushID: push.pushID))
        ctx.perform(.startTimer(.placeholder(uuid: uuid), afterMs: placeholderTimeoutMs))
        ctx.perform(.register(protection: .afterFirstUnlock))
    }

    public mutating func didReceiveAckResponse(pushID: Int32, callActive: Bool, _ ctx: inout ClientContext) {
        guard !callActive else { return }
        for i in shown.indices where shown[i].pushID == pushID && !shown[i].over { end(i, .remoteEnded, &ctx) }
    }

    public mutating func didReceiveCallGone(pushID: Int32, _ ctx: inout ClientContext) {
        didReceiveAckResponse(pushID: pushID, callActive: false, &ctx)
    }

    public mutating func didUpdatePushToken(_ ctx: inout ClientContext) { ctx.perform(.uploadToken) }

    public mutating func didInvalidatePushToken(_ ctx: inout ClientContext) {
        ctx.perform(.deleteToken)
        // The token is gone: every sealing gateway must drop our grant and call key too.
        if !callKeys.isEmpty { ctx.perform(.stopGrants) }
    }

    public mutating func registrationFinished(success: Bool, _ ctx: inout ClientContext) {}

    // MARK: SIP

    public mutating func didReceiveInvite(_ invite: IncomingInvite, _ ctx: inout ClientContext) {
        let placeholder = shown.firstIndex {
            invite.pushID >= 0 && $0.pushID == invite.pushID && $0.claimedInvite < 0
        }
        if bug == .none, let i = placeholder {
            shown[i].claimedInvite = invite.call
            if shown[i].declined {
                ctx.perform(.sendDecline(call: invite.call))  // the user already said no
                return
            }
            guard !shown[i].over else { return }
            ctx.perform(.claimInvite(call: invite.call, uuid: shown[i].uuid))
            ctx.perform(.reportCallUpdated(uuid: shown[i].uuid))
            if shown[i].answerWaitsForInvite {
                ctx.perform(.sendOK(call: invite.call))
                ctx.perform(.fulfillAnswer(uuid: shown[i].uuid))
                shown[i].answerWaitsForInvite = false
            }
            return
        }
        // A direct ring (no push before it) — or, with the bug, every INVITE.
        let uuid = ctx.newCallUUID()
        ctx.perform(.reportNewIncomingCall(uuid: uuid, pushID: -1, invite: invite.call))
        ctx.perform(.claimInvite(call: invite.call, uuid: uuid))
        var call = ShownCall(uuid: uuid, pushID: -1, serverCall: invite.call)
        call.claimedInvite = invite.call
        shown.append(call)
    }

    public mutating func didReceiveCancel(call: Int32, _ ctx: inout ClientContext) {
        for i in shown.indices where !shown[i].over && (shown[i].claimedInvite == call || shown[i].serverCall == call) {
            end(i, .remoteEnded, &ctx)
        }
    }

    // MARK: CallKit provider delegate

    public mutating func performAnswerCallAction(uuid: Int32, _ ctx: inout ClientContext) {
        guard let i = shown.firstIndex(where: { $0.uuid == uuid && !$0.over }) else {
            ctx.perform(.failAnswer(uuid: uuid))
            return
        }
        if shown[i].claimedInvite >= 0 {
            ctx.perform(.sendOK(call: shown[i].claimedInvite))
            ctx.perform(.fulfillAnswer(uuid: uuid))
        } else {
            shown[i].answerWaitsForInvite = true  // fulfilled once the 200 OK has gone out
        }
    }

    public mutating func performEndCallAction(uuid: Int32, _ ctx: inout ClientContext) {
        guard let i = shown.firstIndex(where: { $0.uuid == uuid && !$0.over }) else { return }
        shown[i].over = true
        shown[i].declined = true
        shown[i].answerWaitsForInvite = false
        if shown[i].claimedInvite >= 0 { ctx.perform(.sendDecline(call: shown[i].claimedInvite)) }
    }

    public mutating func timerFired(_ timer: PolicyTimer, _ ctx: inout ClientContext) {
        guard case .placeholder(let uuid) = timer,
            let i = shown.firstIndex(where: { $0.uuid == uuid && !$0.over && $0.claimedInvite < 0 })
        else { return }
        end(i, .failed, &ctx)  // no INVITE came: the placeholder must not ring on
    }

    public mutating func connectivityChanged(online: Bool, _ ctx: inout ClientContext) {
        if online && ctx.appState == .foreground { ctx.perform(.register(protection: .afterFirstUnlock)) }
    }

    mutating func end(_ i: Int, _ reason: EndReason, _ ctx: inout ClientContext) {
        if shown[i].answerWaitsForInvite {
            ctx.perform(.failAnswer(uuid: shown[i].uuid))
            shown[i].answerWaitsForInvite = false
        }
        shown[i].over = true
        ctx.perform(.reportCallEnded(uuid: shown[i].uuid, reason: reason))
    }
}

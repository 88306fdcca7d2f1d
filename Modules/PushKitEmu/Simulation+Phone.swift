/// The phone side of the simulation: iOS delivering pushes, launching the app, running the
/// policy's callbacks, and the CallKit provider.
extension Simulation {
    mutating func beginCallback() {
        ctx.begin(now: now, locked: phone.locked, online: phone.online, appState: phone.app)
    }

    /// A fresh process: the policy's in-memory state is gone, its old timers are void.
    mutating func startProcess(as state: AppState) {
        policy = pristinePolicy
        processGeneration &+= 1
        phone.app = state
        phone.sipConnected = false
        beginCallback()
        policy.launched(&ctx)
        applyOps()
        deliverCallKeys()
        deliverPendingTokenChange(launch: true)
    }

    /// The app reads its call keys from the keychain at launch, when the phone joined a sealing
    /// gateway (docs/adr/0154-client-protocol-call-keys.md); a process that already ran when the
    /// run began reads them before its first scripted step or push. Each key carries its
    /// gateway's grant expiry: this is the app's check-in, where a grant with less than 7 days
    /// left is owed a renewal (``CallGrant``).
    mutating func deliverCallKeys() {
        guard !keychain.gateways.isEmpty, keysGeneration != processGeneration else { return }
        keysGeneration = processGeneration
        beginCallback()
        policy.didReceiveCallKeys(keychain.appKeys, &ctx)
        applyOps()
        grantsCheckedIn()
    }

    /// GRANT: the app was told its token is gone; a phone that joined sealing gateways must tell
    /// each to stop in that same callback (docs/adr/0153).
    mutating func checkGrantsStopped() {
        guard clientFailure == nil, !keychain.gateways.isEmpty, !ctx.ops.contains(.stopGrants) else { return }
        checker.record(Violation(.grantsNotStopped, t: now))
    }

    /// PushKit hands the app its credentials at every launch (once `desiredPushTypes` is set),
    /// and a change that happened while it was not running when it runs again.
    mutating func deliverPendingTokenChange(launch: Bool = false) {
        guard phone.tokenChangePending || (launch && phone.tokenValid) else { return }
        phone.tokenChangePending = false
        beginCallback()
        if phone.tokenValid {
            policy.didUpdatePushToken(&ctx)
            applyOps()
        } else {
            policy.didInvalidatePushToken(&ctx)
            applyOps()
            checkGrantsStopped()
        }
    }

    /// A scripted app-state change.
    mutating func transition(to state: AppState) {
        let wasRunning = phone.appRunning
        let old = phone.app
        var state = state
        // iOS keeps an app with a CallKit call running (and its SIP flow up) in the background.
        let inCall = callkit.contains { $0.active } && wasRunning
        if inCall && state == .suspended { state = .background }
        record(.appState(state))
        switch state {
        case .foreground, .background:
            if old == .killed {
                startProcess(as: state)
            } else {
                phone.app = state
                if !wasRunning { deliverPendingTokenChange() }
                if state == .foreground { notifyConnectivity() } else if !inCall { phone.sipConnected = false }
            }
        case .suspended:
            phone.app = .suspended
            phone.sipConnected = false
        case .killed:
            phone.app = .killed
            phone.sipConnected = false
            processDied()
        }
    }

    /// The process died: its policy state and timers are gone, and iOS ends its CallKit calls.
    mutating func processDied() {
        policy.processEnded()
        policy = pristinePolicy
        processGeneration &+= 1
        for i in callkit.indices where callkit[i].active {
            callkit[i].ended = true
            if callkit[i].answer == .pending { callkit[i].answer = .failed }
            record(.callkitEnd(uuid: Int32(i), reason: .failed))
        }
    }

    mutating func apnsDelivered(_ p: Int32) {
        guard phone.online else {
            record(.apnsDropped(push: p))
            return
        }
        record(.apnsDelivered(push: p, ageMs: now - pushes[Int(p)].sentAt))
        let arrival: PushArrival
        switch phone.app {
        case .killed:
            arrival = phone.pushArrived(
                now: now, coldLaunchMs: settings.launchFromKilled.sample(using: &delivery), resumeMs: 0)
        case .suspended:
            arrival = phone.pushArrived(
                now: now, coldLaunchMs: 0, resumeMs: settings.launchFromSuspended.sample(using: &delivery))
        case .foreground, .background:
            arrival = phone.pushArrived(now: now, coldLaunchMs: 0, resumeMs: 0)
        }
        switch arrival {
        case .suppressed:
            record(.pushSuppressed(push: p))
        case .runHandler(let after, let from):
            if let from { record(.appLaunch(from: from, push: p)) }
            schedule(.handlerRun(p), after: after)
        }
    }

    mutating func runHandler(_ p: Int32) {
        if !phone.appRunning {
            if phone.app == .killed { startProcess(as: .background) } else { phone.app = .background }
        }
        if now >= phone.launchingUntil { phone.launchingUntil = -1 }
        let push = pushes[Int(p)]
        if handlerStartedAt[Int(p)] < 0 { handlerStartedAt[Int(p)] = now }
        record(.handlerStart(push: p))
        var verdict: SealVerdict?
        if let sealed = push.sealed {
            deliverCallKeys()
            let v = keychain.judge(sealed, now: now, sealing: sealing)
            sealVerdicts[Int(p)] = v
            record(.sealCheck(push: p, verdict: v))
            verdict = v
        }
        beginCallback()
        policy.didReceiveIncomingPush(push, &ctx)
        var reported = false
        for op in ctx.ops {
            if case .reportNewIncomingCall = op { reported = true }
        }
        applyOps()
        guard clientFailure == nil else { return }
        let killed = checker.handlerReturned(push, ops: ctx.ops, t: now)
        record(.handlerReturn(push: p, reported: reported))
        if let verdict, !verdict.trusted {
            let acked = ctx.ops.contains { if case .ackPush(pushID: p) = $0 { true } else { false } }
            checker.untrustedSealedPushHandled(
                push, verdict: verdict, acked: acked, stillRinging: activeCallKitCall(push: p), t: now)
        } else {
            checker.pushHandled(push, deliveredAt: now, stillRinging: activeCallKitCall(push: p))
        }
        if killed {
            let strikes = phone.killedForR1()
            processDied()
            record(.appKilled(strikes: strikes))
            if checker.strikeCounted(strikes, t: now) {
                phone.startBlackout()
                record(.blackout(strikes: strikes))
            }
        }
    }

    mutating func ackResponseArrived(_ p: Int32, active: Bool) {
        guard phone.appRunning, phone.online else { return }
        record(.ackResponse(push: p, callActive: active))
        beginCallback()
        policy.didReceiveAckResponse(pushID: p, callActive: active, &ctx)
        applyOps()
        if !active && clientFailure == nil { checkCallerLeft(pushes[Int(p)].call) }
    }

    mutating func registerResultArrived(_ ok: Bool) {
        guard phone.appRunning else { return }
        if ok && phone.online { phone.sipConnected = true }
        record(.registrationResult(success: ok))
        beginCallback()
        policy.registrationFinished(success: ok, &ctx)
        applyOps()
    }

    mutating func inviteArrived(_ c: Int32) {
        guard phone.sipReachable else {
            record(.sipLost(call: c))
            return
        }
        record(.inviteReceived(call: c))
        beginCallback()
        policy.didReceiveInvite(IncomingInvite(call: c, pushID: calls[Int(c)].push), &ctx)
        applyOps()
    }

    mutating func cancelArrived(_ c: Int32) {
        guard phone.sipReachable else {
            record(.sipLost(call: c))
            return
        }
        record(.cancelReceived(call: c))
        beginCallback()
        policy.didReceiveCancel(call: c, &ctx)
        applyOps()
        checkCallerLeft(c)
    }

    mutating func goneNoticeArrived(_ c: Int32) {
        guard phone.sipReachable else {
            record(.sipLost(call: c))
            return
        }
        record(.goneNoticeReceived(call: c))
        beginCallback()
        policy.didReceiveCallGone(pushID: calls[Int(c)].push, &ctx)
        applyOps()
        checkCallerLeft(c)
    }

    /// R5: once the phone knows the caller left, nothing for that call may still ring.
    mutating func checkCallerLeft(_ c: Int32) {
        guard clientFailure == nil, c >= 0, !calls[Int(c)].leftFlagged, let uuid = activeCallKitCall(call: c) else {
            return
        }
        calls[Int(c)].leftFlagged = true
        checker.record(Violation(.callerLeftStillRinging, t: now, call: c, push: calls[Int(c)].push, uuid: uuid))
    }

    mutating func userAnswered(_ uuid: Int32) {
        guard callkit[Int(uuid)].active, callkit[Int(uuid)].answer == .none, phone.appRunning else { return }
        callkit[Int(uuid)].answer = .pending
        record(.userAnswer(uuid: uuid))
        let c = callkit[Int(uuid)].call
        if c >= 0 { calls[Int(c)].answerTappedAt = now }
        schedule(.answerDeadline(uuid), after: settings.answerActionTimeoutMs)
        beginCallback()
        policy.performAnswerCallAction(uuid: uuid, &ctx)
        applyOps()
    }

    mutating func userDeclined(_ uuid: Int32) {
        guard callkit[Int(uuid)].active, callkit[Int(uuid)].answer == .none, phone.appRunning else { return }
        callkit[Int(uuid)].ended = true
        record(.userDecline(uuid: uuid))
        let c = callkit[Int(uuid)].call
        if c >= 0 { calls[Int(c)].declinedInGeneration = processGeneration }
        beginCallback()
        policy.performEndCallAction(uuid: uuid, &ctx)
        applyOps()
    }

    mutating func answerDeadline(_ uuid: Int32) {
        guard callkit[Int(uuid)].answer == .pending else { return }
        callkit[Int(uuid)].answer = .failed
        record(.answerTimedOut(uuid: uuid))
        let call = callkit[Int(uuid)]
        checker.record(Violation(.answerActionTimedOut, t: now, call: call.call, push: call.push, uuid: uuid))
        if call.active {
            callkit[Int(uuid)].ended = true
            record(.callkitEnd(uuid: uuid, reason: .failed))
        }
    }
}

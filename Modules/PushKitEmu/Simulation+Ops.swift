/// Executing what the policy recorded: CallKit, SIP and HTTP requests, timers.
extension Simulation {
    /// Applies the current callback's ops in order (the ops stay in `ctx` for the R1 check). A
    /// callback the client could not answer records its `CLIENT` violation and stops the run.
    mutating func applyOps() {
        if let fault = ctx.fault {
            if clientFailure == nil {
                clientFailure = fault
                checker.record(Violation(fault.violationKind, t: now))
            }
            return
        }
        var i = 0
        while i < ctx.ops.count {
            apply(ctx.ops[i])
            i += 1
        }
    }

    mutating func apply(_ op: ClientOp) {
        let oneWay = settings.networkOneWayMs
        switch op {
        case .ackPush(let p):
            record(.ackSent(push: p))
            if phone.online && p >= 0 && Int(p) < pushes.count { schedule(.ackArrives(p), after: oneWay) }
        case .reportNewIncomingCall(let uuid, let p, let invite):
            report(uuid: uuid, push: p, invite: invite)
        case .stopGrants:
            guard phone.online else { return }
            record(.grantsStopped)
        case .renewGrant(let seconds):
            guard phone.online else { return }
            renewGrants(lifetimeMs: Int64(seconds) * 1_000, seconds: seconds)
        case .showCaller(let uuid):
            guard uuid >= 0, Int(uuid) < callkit.count else { return }
            record(.callerShown(uuid: uuid))
            let p = callkit[Int(uuid)].push
            guard p >= 0, Int(p) < sealVerdicts.count else { return }
            checker.callerShown(uuid: uuid, push: p, verdict: sealVerdicts[Int(p)], call: pushes[Int(p)].call, t: now)
        case .reportCallUpdated, .reportCallEnded, .failAnswer, .claimInvite:
            if let event = callkit.applyProviderOp(op) { record(event) }
        case .fulfillAnswer(let uuid):
            guard let event = callkit.applyProviderOp(op) else { return }
            record(event)
            let c = callkit[Int(uuid)].call
            if c < 0 || !calls[Int(c)].okSent {
                checker.record(
                    Violation(
                        .answerFulfilledBeforeOK, t: now, call: c, push: callkit[Int(uuid)].push,
                        uuid: uuid))
            }
        case .sendOK(let c):
            guard c >= 0, Int(c) < calls.count else { return }
            record(.okSent(call: c))
            calls[Int(c)].okSent = true
            if phone.online { schedule(.okArrives(c), after: oneWay) }
        case .sendDecline(let c):
            guard c >= 0, Int(c) < calls.count else { return }
            record(.declineSent(call: c))
            if phone.online { schedule(.declineArrives(c), after: oneWay) }
        case .register(let protection):
            if phone.locked && protection == .whenUnlocked {
                record(.keychainDenied)
                schedule(.registerResult(false), after: 0)
            } else if phone.online {
                record(.registerSent)
                schedule(.registerArrives(expires: Int32(settings.requestedExpirySeconds)), after: oneWay)
            } else {
                schedule(.registerResult(false), after: 0)
            }
        case .uploadToken:
            guard phone.online else { return }
            uploads.append(phone.token)
            schedule(.tokenUploadArrives(Int32(uploads.count - 1)), after: oneWay)
        case .deleteToken:
            if phone.online { schedule(.tokenDeleteArrives, after: oneWay) }
        case .fetch:
            record(.fetchSent)
        case .startTimer(let timer, let after):
            schedule(.policyTimer(timer, generation: processGeneration), after: after)
        }
    }

    func isCallKit(_ uuid: Int32) -> Bool { callkit.isReported(uuid) }

    /// `CXProvider.reportNewIncomingCall`: the phone rings. Checks R5 duplicates and arms the
    /// placeholder deadline and the scripted user answer.
    mutating func report(uuid: Int32, push p: Int32, invite: Int32) {
        guard uuid >= 0 else { return }
        while callkit.count <= Int(uuid) { callkit.append(CallKitCall()) }
        guard !callkit[Int(uuid)].used else { return }
        let validPush = p >= 0 && Int(p) < pushes.count
        let c = validPush ? pushes[Int(p)].call : (invite >= 0 && Int(invite) < calls.count ? invite : -1)
        if let other = activeCallKitCall(call: c) {
            checker.record(
                Violation(
                    .duplicateSession, t: now, call: c, push: validPush ? p : calls[Int(c)].push,
                    uuid: max(uuid, other)))
        }
        callkit[Int(uuid)] = CallKitCall(used: true, call: c, push: validPush ? p : -1, invite: invite)
        record(.callkitReport(uuid: uuid, call: c, push: validPush ? p : -1))
        guard c >= 0 else { return }
        if validPush && invite < 0 && pushes[Int(p)].content == .call {
            schedule(.placeholderDeadline(uuid), after: settings.placeholderTimeoutMs + 1)
        }
        if calls[Int(c)].declinedInGeneration == processGeneration {
            checker.record(Violation(.rangAfterDecline, t: now, call: c, push: calls[Int(c)].push, uuid: uuid))
        }
        if !calls[Int(c)].answerScheduled {
            calls[Int(c)].answerScheduled = true
            if calls[Int(c)].answerAfterMs >= 0 { schedule(.userAnswer(uuid), after: calls[Int(c)].answerAfterMs) }
            if calls[Int(c)].declineAfterMs >= 0 { schedule(.userDecline(uuid), after: calls[Int(c)].declineAfterMs) }
        }
    }
}

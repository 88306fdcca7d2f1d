import CallSession
import PushKitEmu

/// Executing what the policy recorded, for real: HTTP to the gateway, REGISTER, the emulated
/// CallKit provider, 180/200/603 on the SIP call, timers.
extension LivePhone {
    /// What the user will do with a call's first ring (scenario step `answer_after_ms`…), or
    /// with each of its rings (`everyRing`).
    struct UserPlan: Sendable {
        var answerAfterMs: Int64 = -1
        var declineAfterMs: Int64 = -1
        var everyRing = false
        var scheduled = false
        var tappedAt: Int64 = -1
    }

    /// The user (or a test) plans what to do when call `call` first rings. `everyRing`: the
    /// same again each time the call rings anew, on another CallKit call (a call whose wake
    /// gateway died is pushed again by the next one: its first ring vanished, the user answers
    /// the second).
    public func plan(call: Int32, answerAfterMs: Int64?, declineAfterMs: Int64?, everyRing: Bool = false) {
        var plan = plans[call] ?? UserPlan()
        plan.answerAfterMs = answerAfterMs ?? -1
        plan.declineAfterMs = declineAfterMs ?? -1
        plan.everyRing = everyRing
        plans[call] = plan
    }

    /// When the user tapped Answer for `call` (-1 if never).
    public func answerTappedAt(call: Int32) -> Int64 { plans[call]?.tappedAt ?? -1 }

    /// Applies the current callback's ops in order (the ops stay in `ctx` for the R1 check). A
    /// callback the client process could not answer is one `CLIENT` violation; the app is dead
    /// from then on (its process is gone) and the runner stops the scenario.
    func applyOps() {
        if let fault = ctx.fault {
            if clientFault == nil {
                clientFault = fault
                checker.record(Violation(fault.violationKind, t: now))
                timeline.record(.live("client_error", [("detail", .text(fault.detail))]))
                endAppProcess(reason: "client_error")
                app = .killed
            }
            flush()
            return
        }
        for op in ctx.ops { apply(op) }
        flush()
    }

    func apply(_ op: ClientOp) {
        let gen = generation
        switch op {
        case .ackPush(let p):
            record(.ackSent(push: p))
            guard online, p >= 0, Int(p) < pushes.count else { return }
            if pushes[Int(p)].call >= 0 { ackedCalls.insert(pushes[Int(p)].call) }
            let gateway = config.gateway, key = pushKeys[Int(p)]
            perform { [weak self] in
                let response = try? await gateway.ack(pushID: key)
                await self?.ackResponded(p, response, generation: gen)
            }
        case .reportNewIncomingCall(let uuid, let p, let invite):
            report(uuid: uuid, push: p, invite: invite)
        case .showCaller(let uuid):
            guard uuid >= 0, Int(uuid) < callkit.count else { return }
            record(.callerShown(uuid: uuid))
            let p = callkit[Int(uuid)].push
            guard p >= 0, Int(p) < sealVerdicts.count else { return }
            checker.callerShown(uuid: uuid, push: p, verdict: sealVerdicts[Int(p)], call: pushes[Int(p)].call, t: now)
        case .stopGrants, .renewGrant:
            break
        case .reportCallUpdated, .reportCallEnded, .failAnswer:
            if let event = callkit.applyProviderOp(op) { record(event) }
        case .fulfillAnswer(let uuid):
            guard let event = callkit.applyProviderOp(op) else { return }
            record(event)
            let c = callkit[Int(uuid)].call
            if c < 0 || !okSent.contains(c) {
                checker.record(
                    Violation(.answerFulfilledBeforeOK, t: now, call: c, push: callkit[Int(uuid)].push, uuid: uuid))
            }
        case .claimInvite(let c, _):
            guard let event = callkit.applyProviderOp(op) else { return }
            record(event)
            // The SIP glue alerts the caller once the INVITE is bound to a ringing CallKit call.
            if let call = sipCalls[c] { perform { await call.ring() } }
        case .sendOK(let c):
            guard let call = sipCalls[c] else { return }
            record(.okSent(call: c))
            okSent.insert(c)
            perform { await call.answer() }
        case .sendDecline(let c):
            guard let call = sipCalls[c] else { return }
            record(.declineSent(call: c))
            perform { await call.reject(status: 603) }
        case .register(let protection):
            if locked && protection == .whenUnlocked {
                record(.keychainDenied)
                later(0) { $0.registrationFinished(false, generation: gen) }
            } else if online {
                record(.registerSent)
                if config.registerDelayMs > 0 {
                    later(config.registerDelayMs) { phone in
                        guard gen == phone.generation, phone.appRunning, phone.online else { return }
                        phone.register()
                    }
                } else {
                    register()
                }
            } else {
                later(0) { $0.registrationFinished(false, generation: gen) }
            }
        case .uploadToken:
            guard online else { return }
            if config.rfc8599 { return }  // RFC 8599: the token rides in the REGISTER Contact.
            let gateway = config.gateway, config = config, timeline = timeline
            perform {
                let response = try? await gateway.registerToken(
                    endpoint: config.endpointName, token: config.wireToken, environment: config.environment.rawValue,
                    bundleID: config.bundleID, platform: config.platform, sealing: config.sealing)
                if let response, (200..<300).contains(response.status) {
                    timeline.record(.tokenUploaded(token: config.token))
                }
            }
        case .deleteToken:
            guard online, !config.rfc8599 else { return }
            let gateway = config.gateway, name = config.endpointName, timeline = timeline
            perform {
                if let response = try? await gateway.deleteToken(endpoint: name), (200..<300).contains(response.status)
                {
                    timeline.record(.tokenDeleted)
                }
            }
        case .fetch:
            record(.fetchSent)
            guard online else { return }
            let gateway = config.gateway, name = config.endpointName, token = config.wireToken
            perform { _ = try? await gateway.status(endpoint: name, token: token) }
        case .startTimer(let timer, let after):
            later(after) { $0.timerFired(timer, generation: gen) }
        }
    }

    /// No call on the phone: no SIP call and no CallKit call still up. A run that reuses one
    /// phone for many calls waits for this before it kills the app for the next one.
    public var isIdle: Bool { sipCalls.isEmpty && !callkit.contains { $0.active } }

    /// Queues real IO behind what earlier ops asked for.
    func perform(_ work: @escaping @Sendable () async -> Void) { io.yield(work) }

    /// Runs `body` on this phone after `ms` on the phone's ``clock``.
    func later(_ ms: Int64, _ body: @escaping @Sendable (isolated LivePhone) async -> Void) {
        pendingTimers += 1
        let clock = clock
        tasks.append(
            Task { [weak self] in
                if ms > 0 { do { try await clock.sleep(for: .milliseconds(ms)) } catch { return } }
                guard let self else { return }
                await self.run(body)
            })
    }

    func run(_ body: @Sendable (isolated LivePhone) async -> Void) async {
        await body(self)
        pendingTimers -= 1
    }

    func timerFired(_ timer: PolicyTimer, generation gen: Int) {
        guard gen == generation, appRunning, clientFault == nil else { return }
        beginCallback()
        policy.timerFired(timer, &ctx)
        applyOps()
    }

    func registrationFinished(_ ok: Bool, generation gen: Int) {
        guard gen == generation, appRunning else { return }
        record(.registrationResult(success: ok))
        beginCallback()
        policy.registrationFinished(success: ok, &ctx)
        applyOps()
    }

    func isCallKit(_ uuid: Int32) -> Bool { callkit.isReported(uuid) }

    /// `CXProvider.reportNewIncomingCall`: the phone rings. Checks R5 duplicates, arms the
    /// placeholder deadline and the user's planned answer / decline.
    func report(uuid: Int32, push p: Int32, invite: Int32) {
        guard uuid >= 0 else { return }
        while callkit.count <= Int(uuid) { callkit.append(CallKitCall()) }
        guard !callkit[Int(uuid)].used else { return }
        let validPush = p >= 0 && Int(p) < pushes.count
        let c = validPush ? pushes[Int(p)].call : invite
        if let other = activeCallKit(call: c) {
            let push = validPush ? p : (pushes.firstIndex { $0.call == c }.map(Int32.init) ?? -1)
            checker.record(Violation(.duplicateSession, t: now, call: c, push: push, uuid: max(uuid, other)))
        }
        callkit[Int(uuid)] = CallKitCall(used: true, call: c, push: validPush ? p : -1, invite: invite)
        record(.callkitReport(uuid: uuid, call: c, push: validPush ? p : -1))
        guard c >= 0 else { return }
        let gen = generation
        if validPush && invite < 0 && pushes[Int(p)].content == .call {
            later(config.settings.placeholderTimeoutMs + 1) { $0.placeholderDeadline(uuid) }
        }
        if declinedInGeneration[c] == gen {
            checker.record(Violation(.rangAfterDecline, t: now, call: c, push: validPush ? p : -1, uuid: uuid))
        }
        var plan = plans[c] ?? UserPlan()
        if !plan.scheduled || plan.everyRing {
            plan.scheduled = true
            if plan.answerAfterMs >= 0 { later(plan.answerAfterMs) { $0.userAnswered(uuid) } }
            if plan.declineAfterMs >= 0 { later(plan.declineAfterMs) { $0.userDeclined(uuid) } }
        }
        plans[c] = plan
    }

    func placeholderDeadline(_ uuid: Int32) {
        let entry = callkit[Int(uuid)]
        if entry.active && entry.invite < 0 {
            checker.record(
                Violation(.placeholderNotEnded, t: now, call: entry.call, push: entry.push, uuid: uuid))
            flush()
        }
    }

    func userAnswered(_ uuid: Int32) {
        guard callkit[Int(uuid)].active, callkit[Int(uuid)].answer == .none, appRunning else { return }
        callkit[Int(uuid)].answer = .pending
        record(.userAnswer(uuid: uuid))
        let c = callkit[Int(uuid)].call
        if c >= 0 { plans[c, default: UserPlan()].tappedAt = now }
        later(config.settings.answerActionTimeoutMs) { $0.answerDeadline(uuid) }
        beginCallback()
        policy.performAnswerCallAction(uuid: uuid, &ctx)
        applyOps()
    }

    func userDeclined(_ uuid: Int32) {
        guard callkit[Int(uuid)].active, callkit[Int(uuid)].answer == .none, appRunning else { return }
        callkit[Int(uuid)].ended = true
        record(.userDecline(uuid: uuid))
        let c = callkit[Int(uuid)].call
        if c >= 0 { declinedInGeneration[c] = generation }
        beginCallback()
        policy.performEndCallAction(uuid: uuid, &ctx)
        applyOps()
    }

    func answerDeadline(_ uuid: Int32) {
        guard callkit[Int(uuid)].answer == .pending else { return }
        callkit[Int(uuid)].answer = .failed
        record(.answerTimedOut(uuid: uuid))
        let entry = callkit[Int(uuid)]
        checker.record(Violation(.answerActionTimedOut, t: now, call: entry.call, push: entry.push, uuid: uuid))
        if entry.active {
            callkit[Int(uuid)].ended = true
            record(.callkitEnd(uuid: uuid, reason: .failed))
        }
        flush()
    }
}

import PushKitEmu
import SIPDialog

/// The wake decision's actions turned into the proxy's, and the timers that drive both.
extension HeldCallMachine {
    /// A timer the machine started has fired.
    public mutating func timerFired(_ timer: Timer) -> [Action] {
        switch timer {
        case .qualify: return perform(decision.qualifyTimedOut(hasToken: hasToken))
        case .ackWindow: return perform(decision.ackWindowExpired())
        case .registerWait: return perform(decision.registerWaitExpired())
        case .ring: return perform(decision.inviteTimedOut())
        case .goneFallback: return goneFallbackFired()
        case .upstream(let t): return serverActions(upstream.timerFired(t))
        case .downstream(let t): return downstreamTimerFired(t)
        case .linger: return lingerFired()
        }
    }

    /// How long a finished call's state lingers: 64·T1 (§17.2.1 Timer H, RFC 6026 Timer M).
    var linger: Duration { settings.timers.transactionTimeout }

    /// Lingers a call owing a gone notice may take: every decision timer fits in.
    var maxLingers: Int {
        let d = settings.decision
        let decisionMs = d.ackWindowMs + d.registerWaitMs + 2 * d.qualifyTimeoutMs + d.inviteTimeoutMs
        let lingerMs = linger.components.seconds * 1_000 + linger.components.attoseconds / 1_000_000_000_000_000
        return Int(decisionMs / max(lingerMs, 1)) + 2
    }

    mutating func lingerFired() -> [Action] {
        if isReapable || lingers >= maxLingers { return [.free] }
        lingers += 1
        return [.startTimer(.linger, linger)]
    }

    /// One ``WakeAction`` of the decision, as the proxy's actions (what ``WakeServer`` and the
    /// gateway's transport did across two actors, here in one step).
    mutating func perform(_ action: WakeAction) -> [Action] {
        let d = settings.decision
        switch action {
        case .none:
            return answeredCleanup()
        case .qualify:
            return [.sendQualify, .startTimer(.qualify, .milliseconds(d.qualifyTimeoutMs))]
        case .sendInvite(let direct):
            guard !callerLeft else { return [] }
            var out: [Action] = [.cancelTimer(.qualify), .cancelTimer(.registerWait)]
            out += release(.phone(direct: direct))
            out.append(.emit(.released(direct: direct)))
            out.append(.startTimer(.ring, .milliseconds(d.inviteTimeoutMs)))
            return out
        case .sendPush:
            state = .pushed
            return [.cancelTimer(.qualify), .sendPush, .startTimer(.ackWindow, .milliseconds(d.ackWindowMs))]
        case .awaitRegister:
            state = .acked
            return [.cancelTimer(.ackWindow), .startTimer(.registerWait, .milliseconds(d.registerWaitMs))]
        case .failover(let reason):
            return failover(reason)
        case .cancelAndFailover(let reason):
            return cancelDownstream() + failover(reason)
        case .sendCancel:
            return [.cancelTimer(.ring)] + cancelDownstream()
        case .stop:
            // A gone notice owed keeps the register wait running (the notice goes out with a
            // REGISTER within it, or not at all).
            if decision.state == .cancelledNoticeOwed { return [.cancelTimer(.qualify), .cancelTimer(.ackWindow)] }
            return cancelDecisionTimers()
        case .sendGoneNotice:
            return cancelDecisionTimers() + startGoneNotice()
        }
    }

    /// The phone's 2xx ends the decision: its ring timer goes.
    private func answeredCleanup() -> [Action] {
        decision.state == .answered ? [.cancelTimer(.ring)] : []
    }

    func cancelDecisionTimers() -> [Action] {
        [.cancelTimer(.qualify), .cancelTimer(.ackWindow), .cancelTimer(.registerWait), .cancelTimer(.ring)]
    }

    /// Gives up on the phone: the failover URI while nothing went downstream yet and the caller is
    /// still there, else 480 with the reason (docs/wake-gateway.md "Failover").
    mutating func failover(_ reason: FailoverReason) -> [Action] {
        guard upstream.state == .proceeding else { return cancelDecisionTimers() }
        var out = cancelDecisionTimers() + [.revokePush]
        if isHeld, settings.hasFailoverURI, !callerLeft {
            out.append(.emit(.failover(reason, toURI: true)))
            out += release(.failover(reason))
            return out
        }
        out.append(.emit(.failover(reason, toURI: false)))
        state = .failedOver(reason)
        out += finish(480, why: "failover_" + reason.rawValue)
        return out
    }

    /// Our own final answer upstream through the server transaction (Timer G/H), then the linger.
    mutating func finish(_ status: Int, why: String) -> [Action] {
        let sent = serverActions(upstream.send(status: status, .local(status: status, why: why)))
        guard !sent.isEmpty else { return [] }
        return sent + [.emit(.ended(status: status, why: why)), .startTimer(.linger, linger)]
    }

    /// Forwards the held INVITE on `leg` through a new client transaction (§16.6, §17.1.1).
    mutating func release(_ leg: Leg) -> [Action] {
        var client = InviteClientTransaction<R>(reliable: false, timers: settings.timers)
        let actions = client.start()
        downstream = client
        self.leg = leg
        if case .goneNotice = leg {
            state = .cancelled(notice: Notice())
        } else {
            state = .released(Released(leg: leg))
        }
        return clientActions(actions, leg: leg, retransmission: false, status: 0)
    }

    /// Nothing went downstream yet and no final went upstream.
    var isHeld: Bool {
        switch state {
        case .held, .pushed, .acked: true
        case .released, .answered, .failedOver, .cancelled, .ended: false
        }
    }

    /// CANCEL downstream (§9.1, §16.10): once, and never after the phone's 2xx.
    mutating func cancelDownstream() -> [Action] {
        switch state {
        case .released(var released) where !released.cancelSent:
            released.cancelSent = true
            state = .released(released)
            return [.cancelDownstream, .emit(.cancelSent)]
        case .cancelled(var notice?) where !notice.cancelSent && !notice.done:
            notice.cancelSent = true
            state = .cancelled(notice: notice)
            return [.cancelDownstream, .emit(.cancelSent)]
        default:
            return []
        }
    }

    /// The server transaction's actions as the machine's.
    func serverActions(_ actions: [ServerTransactionAction<Upstream>]) -> [Action] {
        actions.compactMap { action in
            switch action {
            case .sendResponse(let response): .sendUpstream(response)
            case .startTimer(let t, let d): .startTimer(.upstream(t), d)
            case .cancelTimer(let t): .cancelTimer(.upstream(t))
            case .absorbedACK, .terminate: nil
            }
        }
    }
}

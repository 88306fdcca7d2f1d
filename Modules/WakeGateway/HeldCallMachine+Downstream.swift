import SIPDialog

/// The downstream leg: responses from the phone (or the failover URI) relayed upstream (§16.7),
/// and the gone notice's leg, whose answers stay here.
extension HeldCallMachine {
    /// A response on the released INVITE (the shell drops the 200 to our CANCEL: its CSeq says
    /// CANCEL). The client transaction absorbs what §17.1.1 absorbs and ACKs non-2xx finals.
    public mutating func downstreamResponse(status: Int, _ response: R) -> [Action] {
        guard var client = downstream, let leg else { return [] }
        let actions = client.receive(status: status, response)
        downstream = client
        return clientActions(actions, leg: leg, retransmission: false, status: status)
    }

    /// Timer B bounds only the Calling state (§17.1.1.2: "still in the Calling state when Timer B
    /// fires"): once the phone's leg has a provisional answer, the decision's ring timer bounds
    /// the ringing (SIPDialog's client times out in Proceeding too, so it is not fed B there).
    mutating func downstreamTimerFired(_ timer: TransactionTimer) -> [Action] {
        guard var client = downstream, let leg else { return [] }
        if timer == .B, client.state == .proceeding, case .phone = leg { return [] }
        let actions = client.timerFired(timer)
        downstream = client
        return clientActions(actions, leg: leg, retransmission: true, status: 0)
    }

    /// The client transaction's actions as the machine's; what it delivers goes on by leg.
    mutating func clientActions(
        _ actions: [ClientTransactionAction<R>], leg: Leg, retransmission: Bool, status: Int
    ) -> [Action] {
        var out: [Action] = []
        for action in actions {
            switch action {
            case .sendRequest: out.append(.sendDownstream(leg, retransmission: retransmission))
            case .sendACK(let response): out.append(.ackDownstream(response))
            case .deliver(let response):
                out += leg == .goneNotice ? noticeDelivered(status, response) : relay(status, response)
            case .startTimer(let t, let d): out.append(.startTimer(.downstream(t), d))
            case .cancelTimer(let t): out.append(.cancelTimer(.downstream(t)))
            case .terminate(let end): out += downstreamEnded(end, leg: leg)
            }
        }
        return out
    }

    /// §16.7: 100 is hop-by-hop; other 1xx relayed; every 2xx relayed (step 5, also after our
    /// own final: the 2xx/CANCEL race); a non-2xx final relayed once, unless the caller already
    /// has a final (the client transaction ACKs it either way).
    mutating func relay(_ status: Int, _ response: R) -> [Action] {
        if status == 100 { return [] }
        if status < 200 {
            var out: [Action] = []
            if case .released(var released) = state, !released.rang, status == 180 || status == 183 {
                released.rang = true
                state = .released(released)
                out.append(.emit(.ringing(status: status)))
            }
            return out + serverActions(upstream.send(status: status, .relay(response)))
        }
        if status < 300 {
            var out: [Action] = [.cancelTimer(.ring)]
            if case .released = state {
                state = .answered
                out.append(.emit(.answered))
                out += perform(decision.answered())
            }
            let wasProceeding = upstream.state == .proceeding
            let sent = serverActions(upstream.send(status: status, .relay(response)))
            out += sent.isEmpty ? [.sendUpstream(.relay(response))] : sent
            if wasProceeding { out.append(.startTimer(.linger, linger)) }
            return out
        }
        guard upstream.state == .proceeding else { return [] }
        state = .ended(status: status)
        var out: [Action] = [.cancelTimer(.ring), .emit(.ended(status: status, why: "downstream_final"))]
        out += serverActions(upstream.send(status: status, .relay(response)))
        out.append(.startTimer(.linger, linger))
        return out
    }

    /// Timer B (or the transport) ended the downstream INVITE without a final answer.
    mutating func downstreamEnded(_ end: TransactionEnd, leg: Leg) -> [Action] {
        guard end != .completed else { return [] }
        if leg == .goneNotice { return noticeDone(status: 408) }
        switch decision.state {
        case .ringingDirect, .inviteSent:
            return perform(decision.inviteTimedOut())
        default:
            guard upstream.state == .proceeding else { return [] }
            state = .ended(status: 408)
            return [.cancelTimer(.ring)] + finish(408, why: "downstream_timeout")
        }
    }

    // MARK: The gone notice (docs/wake-gateway.md "Gone notice")

    /// The held INVITE to the woken phone's fresh contact, to be CANCELled once it alerts.
    mutating func startGoneNotice() -> [Action] {
        guard callerLeft, downstream == nil else { return [] }
        return [.emit(.goneNotice)] + release(.goneNotice)
            + [.startTimer(.goneFallback, settings.goneCancelFallback)]
    }

    /// The phone's 180/183 shows its branch exists: CANCEL (§9.1). Kamailio's own 100 comes
    /// before it has relayed the INVITE, so a 100 counts only once the fallback is due. The
    /// final answer is ACKed (487: by the client transaction; a 2xx that beat the CANCEL: by the
    /// shell, which also sends BYE).
    mutating func noticeDelivered(_ status: Int, _ response: R) -> [Action] {
        guard case .cancelled(var notice?) = state else { return [] }
        if status < 200 {
            notice.provisional = true
            state = .cancelled(notice: notice)
            return status > 100 || notice.fallbackDue ? cancelDownstream() : []
        }
        var out: [Action] = []
        if status < 300 { out.append(.endAnsweredNotice(response, retransmission: notice.done)) }
        return out + noticeDone(status: status)
    }

    mutating func noticeDone(status: Int) -> [Action] {
        guard case .cancelled(var notice?) = state, !notice.done else { return [] }
        notice.done = true
        state = .cancelled(notice: notice)
        return [.cancelTimer(.goneFallback), .emit(.goneNoticeDone(status: status))]
    }

    mutating func goneFallbackFired() -> [Action] {
        guard case .cancelled(var notice?) = state, !notice.done, !notice.cancelSent else { return [] }
        notice.fallbackDue = true
        state = .cancelled(notice: notice)
        return notice.provisional ? cancelDownstream() : []
    }
}

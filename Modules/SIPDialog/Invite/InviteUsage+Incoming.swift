import SIPCore

/// UAS side: answering the INVITE (RFC 3261 §13.3), 2xx retransmission until ACK
/// (§13.3.1.4), CANCEL (§9.2).
extension InviteUsage {
    /// §13.3.1.1: 180 Ringing, or 183 Session Progress with an early-media answer.
    public mutating func ring(earlyMedia: SessionBody? = nil) throws(InviteError) -> [Action] {
        guard state == .incoming, let invite = incomingInvite else {
            throw InviteError(.invalidState, "ring needs an unanswered incoming call (\(state))")
        }
        if let earlyMedia { localBody = earlyMedia }
        return [reply(to: invite, status: earlyMedia == nil ? 180 : 183, body: earlyMedia)]
    }

    /// §13.3.1.4: 200 OK with our answer (or our offer, when the INVITE had none); the dialog is
    /// confirmed and the 2xx retransmitted until the ACK. Honours a Session-Expires request
    /// (RFC 4028 §9).
    public mutating func answer(_ body: SessionBody?) throws(InviteError) -> [Action] {
        guard state == .incoming, let invite = incomingInvite else {
            throw InviteError(.invalidState, "answer needs an unanswered incoming call (\(state))")
        }
        if let body { localBody = body }
        let timer = sessionTimerAnswer(for: invite)
        let response = makeResponse(to: invite, status: 200, body: body, extra: timer.headers)
        dialog?.confirm()
        state = .waitingForACK
        return start2xx(response, to: invite, sequence: inviteSequence) + timer.actions
    }

    /// §13.3.1.3: a final failure (300–699) to the incoming INVITE.
    public mutating func reject(status: Int, reason: String? = nil) throws(InviteError) -> [Action] {
        guard (300...699).contains(status) else { throw InviteError(.invalidStatus, "\(status) is not a failure") }
        return try finalFailure(status: status, reason: reason, end: .rejected(status: status))
    }

    mutating func finalFailure(status: Int, reason: String?, end: InviteEndReason) throws(InviteError) -> [Action] {
        guard state == .incoming, let invite = incomingInvite else {
            throw InviteError(.invalidState, "reject needs an unanswered incoming call (\(state))")
        }
        state = .terminated
        return [reply(to: invite, status: status, reason: reason)] + cancelAllTimers()
            + emitEnd(end)
    }

    /// §13.3.1.4: send a 2xx to an INVITE and retransmit it (T1, doubling to T2) until its ACK;
    /// give up after 64·T1.
    mutating func start2xx(_ response: SIPResponse, to request: SIPRequest, sequence: UInt32) -> [Action] {
        let t1 = settings.timers.t1
        pending2xx = Pending2xx(response: response, request: request, sequence: sequence, interval: t1)
        return [
            .sendResponse(response, answering: request), .startTimer(.retransmit2xx, t1),
            .startTimer(.ackTimeout, settings.timers.transactionTimeout),
        ]
    }

    mutating func retransmit2xx() -> [Action] {
        guard var pending = pending2xx else { return [] }
        pending.interval = settings.timers.backedOff(pending.interval)
        pending2xx = pending
        return [
            .sendResponse(pending.response, answering: pending.request), .startTimer(.retransmit2xx, pending.interval),
        ]
    }

    /// §13.3.1.4: no ACK within 64·T1: the session is ended with BYE.
    mutating func ackTimedOut() -> [Action] {
        guard pending2xx != nil else { return [] }
        pending2xx = nil
        byeAfterACK = false
        return [.cancelTimer(.retransmit2xx)] + sendBye(reason: .ackTimeout)
    }

    /// The ACK for our 2xx (§13.3.1.4; it has its own branch and is not matched by the
    /// transaction). A BYE postponed by ``hangUp()`` goes out now (§15).
    mutating func ackReceived(_ request: SIPRequest) -> [Action] {
        guard let pending = pending2xx, let cseq = try? request.headers.cseq(), cseq.sequence == pending.sequence,
            dialog?.matches(request) == true
        else { return [] }
        pending2xx = nil
        var actions: [Action] = [.cancelTimer(.retransmit2xx), .cancelTimer(.ackTimeout)]
        let body = SessionBody(body: request.bodyBytes, headers: request.headers)
        if state == .waitingForACK {
            state = .confirmed
            actions.append(.event(.confirmed(body)))
            if byeAfterACK {
                byeAfterACK = false
                actions += sendBye(reason: .localHangUp)
            }
        } else if let body {
            actions.append(.event(.offerAnswered(body)))
        }
        return actions
    }

    /// §9.2: a CANCEL for a pending INVITE of this call: 200 to the CANCEL, then 487 to that
    /// INVITE (see ``inviteCancelled(_:)``). After a final response the CANCEL has no effect but
    /// is still answered 200. (A transaction layer that answers CANCEL itself, like SIPEndpoint,
    /// calls ``inviteCancelled(_:)`` directly.)
    mutating func cancelReceived(_ cancel: SIPRequest) -> [Action] {
        let ok = reply(to: cancel, status: 200)
        guard let sequence = (try? cancel.headers.cseq())??.sequence else { return [ok] }
        return [ok] + cancelPendingInvite(sequence: sequence)
    }

    /// §9.2: the transaction layer matched a CANCEL to `invite`, a pending INVITE of this call,
    /// and answered the CANCEL 200. The initial INVITE gets 487 and the call ends; a pending
    /// re-INVITE gets 487 and the session stays as it was; an INVITE already answered is left
    /// alone (the CANCEL has no effect).
    public mutating func inviteCancelled(_ invite: SIPRequest) -> [Action] {
        guard invite.method == .invite, let sequence = (try? invite.headers.cseq())??.sequence else { return [] }
        return cancelPendingInvite(sequence: sequence)
    }

    private mutating func cancelPendingInvite(sequence: UInt32) -> [Action] {
        if role == .uas, state == .incoming, sequence == inviteSequence, let invite = incomingInvite {
            state = .terminated
            return [reply(to: invite, status: 487)] + cancelAllTimers() + emitEnd(.cancelled)
        }
        if let offer = incomingOffer, offer.method == .invite, (try? offer.headers.cseq())??.sequence == sequence {
            incomingOffer = nil
            return [reply(to: offer, status: 487)]
        }
        return []
    }
}

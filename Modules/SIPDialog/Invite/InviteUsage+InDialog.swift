import SIPCore

/// Requests inside the dialog (RFC 3261 §12.2, §14, §15): BYE both ways, re-INVITE and UPDATE
/// offers with glare (491), INFO, OPTIONS.
extension InviteUsage {
    /// §12.2.2: a request with our dialog's tags: CSeq check (500), then by method.
    mutating func inDialogRequest(_ request: SIPRequest) -> [Action] {
        guard state != .terminated, var current = dialog, current.matches(request) else {
            return [.sendResponse(Dialog.noDialogResponse(to: request), answering: request)]
        }
        do {
            try current.acceptRemoteSequence(of: request)
        } catch {
            return [.sendResponse(Dialog.outOfOrderResponse(to: request), answering: request)]
        }
        dialog = current
        switch request.method {
        case .bye:
            return byeReceived(request)
        case .invite:
            return offerReceived(request)
        case .update:
            return offerReceived(request)
        case .info:
            return [
                reply(to: request, status: 200),
                .event(.info(SessionBody(body: request.bodyBytes, headers: request.headers))),
            ]
        case .options:
            var extra: [(SIPHeaderName, String)] = [(.allow, settings.allow), (.accept, "application/sdp")]
            if let supported = supportedValue { extra.append((.supported, supported)) }
            return [reply(to: request, status: 200, extra: extra)]
        default:
            return [reply(to: request, status: 405, extra: [(.allow, settings.allow)])]
        }
    }

    /// §15.1.2: 200 to the BYE, 487 to a pending INVITE, re-INVITE or UPDATE; the session is over.
    private mutating func byeReceived(_ request: SIPRequest) -> [Action] {
        var actions: [Action] = [reply(to: request, status: 200)]
        if state == .incoming, let invite = incomingInvite {
            actions.append(reply(to: invite, status: 487))
        }
        if let offer = incomingOffer { actions.append(reply(to: offer, status: 487)) }
        incomingOffer = nil
        pending2xx = nil
        outgoingOffer = nil
        glareOffer = nil
        state = .terminated
        return actions + cancelAllTimers() + emitEnd(.remoteHangUp)
    }

    /// §14.2: a re-INVITE or UPDATE. Glare with our own offer → 491; a second one before the
    /// first is answered → 500 with Retry-After; Session-Expires below Min-SE → 422 (RFC 4028);
    /// an UPDATE without body is a session refresh, answered at once; otherwise the offer goes
    /// to the media layer (``InviteEvent/remoteOffer(_:)``).
    private mutating func offerReceived(_ request: SIPRequest) -> [Action] {
        guard state == .confirmed || state == .waitingForACK else {
            return [reply(to: request, status: 491)]
        }
        if outgoingOffer != nil { return [reply(to: request, status: 491)] }
        let body = SessionBody(body: request.bodyBytes, headers: request.headers)
        let refreshOnly = request.method == .update && body == nil
        if !refreshOnly, incomingOffer != nil || pending2xx != nil {
            let seconds = ids.nextUInt64() % 11
            return [reply(to: request, status: 500, extra: [(.retryAfter, String(seconds))])]
        }
        if let tooSmall = sessionIntervalTooSmall(request) { return [.sendResponse(tooSmall, answering: request)] }
        try? dialog?.refreshRemoteTarget(from: request.headers)
        if refreshOnly {
            let timer = sessionTimerAnswer(for: request)
            return [reply(to: request, status: 200, extra: timer.headers)] + timer.actions
        }
        incomingOffer = request
        return [.event(.remoteOffer(body))]
    }

    /// §14.2: answers the pending re-INVITE/UPDATE with 200 and `body` (our answer, or our offer
    /// for an offerless re-INVITE, whose answer then comes in the ACK).
    public mutating func answerOffer(_ body: SessionBody?) throws(InviteError) -> [Action] {
        guard let request = incomingOffer, let cseq = try? request.headers.cseq() else {
            throw InviteError(.invalidState, "no re-INVITE or UPDATE is waiting for an answer")
        }
        incomingOffer = nil
        if let body { localBody = body }
        let timer = sessionTimerAnswer(for: request)
        let response = makeResponse(to: request, status: 200, body: body, extra: timer.headers)
        if request.method == .invite { return start2xx(response, to: request, sequence: cseq.sequence) + timer.actions }
        return [.sendResponse(response, answering: request)] + timer.actions
    }

    /// §14.2: refuses the pending re-INVITE/UPDATE (default 488 Not Acceptable Here); the
    /// previous session stays in force.
    public mutating func rejectOffer(status: Int = 488) throws(InviteError) -> [Action] {
        guard (300...699).contains(status) else { throw InviteError(.invalidStatus, "\(status) is not a failure") }
        guard let request = incomingOffer else {
            throw InviteError(.invalidState, "no re-INVITE or UPDATE is waiting for an answer")
        }
        incomingOffer = nil
        return [reply(to: request, status: status)]
    }

    /// §14.1: sends a re-INVITE with a new offer (hold: `a=sendonly`/`inactive`; resume:
    /// `a=sendrecv` — the SDP is the media layer's). Refused while another offer/answer
    /// exchange is pending in either direction.
    public mutating func reinvite(offer: SessionBody) throws(InviteError) -> [Action] {
        guard state == .confirmed else {
            throw InviteError(.invalidState, "re-INVITE needs a confirmed dialog (\(state))")
        }
        guard outgoingOffer == nil, incomingOffer == nil, pending2xx == nil, glareOffer == nil else {
            throw InviteError(.requestPending, "an offer/answer exchange is in progress")
        }
        localBody = offer
        return sendOffer(OutgoingOffer(method: .invite, body: offer, isRefresh: false))
    }

    /// Sends our re-INVITE or UPDATE (new CSeq) with the session-timer headers in force.
    mutating func sendOffer(_ offer: OutgoingOffer) -> [Action] {
        var offer = offer
        let request = makeInDialog(offer.method, body: offer.body, extra: sessionTimerRequestHeaders())
        offer.sequence = (try? request.headers.cseq())??.sequence ?? 0
        outgoingOffer = offer
        return [.sendRequest(request)]
    }

    /// §14.1: the final response to our re-INVITE / UPDATE.
    mutating func offerResponse(_ response: SIPResponse, offer: OutgoingOffer) -> [Action] {
        let status = response.statusCode
        guard status >= 200, let current = dialog, current.matches(response) else { return [] }
        outgoingOffer = nil
        switch status {
        case 200...299:
            var actions: [Action] = []
            if offer.method == .invite { actions.append(.sendACK(makeACK(in: current, sequence: offer.sequence))) }
            try? dialog?.refreshRemoteTarget(from: response.headers)
            if response.headers.contains(.allow) { peerAllowsUpdate = response.headers.allow.contains(.update) }
            if !offer.isRefresh {
                actions.append(.event(.offerAnswered(SessionBody(body: response.bodyBytes, headers: response.headers))))
            }
            return actions + applySessionTimer(fromResponse: response)
        case 401, 407:
            guard answerChallenge(response) else { break }
            return [.event(.challenged(status: status))] + sendOffer(offer)
        case 422:
            guard let minimum = SessionExpires.minSE(of: response.headers), minimum > currentMinSE else { break }
            currentMinSE = minimum
            if var timer = sessionTimer {
                timer.interval = max(timer.interval, minimum)
                sessionTimer = timer
            }
            return sendOffer(offer)
        case 491:
            glareOffer = offer
            let delay = glareDelay()
            return [.startTimer(.glareRetry, delay), .event(.glare(retryAfter: delay))]
        case 408:
            return sendBye(reason: .timeout)
        case 481:
            state = .terminated
            return cancelAllTimers() + emitEnd(.failed(status: 481, reason: response.reasonPhrase))
        default:
            break
        }
        return offer.isRefresh ? [] : [.event(.offerRejected(status: status))]
    }

    /// §14.1: the glare back-off. The owner of the Call-ID (the UAC of the initial INVITE) waits
    /// 2.1–4 s, the other side 0–2 s, both in 10 ms units.
    func glareDelay() -> Duration {
        let steps: UInt64 = role == .uac ? 210 + ids.nextUInt64() % 191 : ids.nextUInt64() % 201
        return .milliseconds(Int64(steps) * 10)
    }

    mutating func retryAfterGlare() -> [Action] {
        guard let offer = glareOffer, state == .confirmed else {
            glareOffer = nil
            return []
        }
        if outgoingOffer != nil || incomingOffer != nil || pending2xx != nil {
            return [.startTimer(.glareRetry, glareDelay())]
        }
        glareOffer = nil
        return sendOffer(offer)
    }

    /// §15.1.1: the response to our BYE. Other forks' BYEs are absorbed; a challenge is answered.
    mutating func byeResponse(_ response: SIPResponse) -> [Action] {
        guard state == .terminating, let current = dialog, current.matches(response) else { return [] }
        if (response.statusCode == 401 || response.statusCode == 407) && answerChallenge(response) {
            return [.sendRequest(makeInDialog(.bye, body: nil))]
        }
        guard response.statusCode >= 200 else { return [] }
        state = .terminated
        return cancelAllTimers()
    }

    /// §12.2.1.2: a 481 or 408 to an in-dialog INFO/OPTIONS ends the dialog.
    mutating func inDialogFailure(_ response: SIPResponse) -> [Action] {
        guard state == .confirmed, dialog?.matches(response) == true,
            let method = (try? response.headers.cseq())??.method, method != .cancel
        else { return [] }
        switch response.statusCode {
        case 408: return sendBye(reason: .timeout)
        case 481:
            state = .terminated
            return cancelAllTimers() + emitEnd(.failed(status: 481, reason: response.reasonPhrase))
        default: return []
        }
    }

    /// §15.1.1: BYE in the dialog; pending requests from the peer get 487 (§15.1.2 mirror).
    mutating func sendBye(reason: InviteEndReason) -> [Action] {
        guard dialog != nil, state != .terminating, state != .terminated else { return emitEnd(reason) }
        var actions = cancelAllTimers()
        if let offer = incomingOffer { actions.append(reply(to: offer, status: 487)) }
        incomingOffer = nil
        pending2xx = nil
        outgoingOffer = nil
        glareOffer = nil
        state = .terminating
        actions.append(.sendRequest(makeInDialog(.bye, body: nil)))
        return actions + emitEnd(reason)
    }
}

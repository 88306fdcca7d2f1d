import SIPCore

/// UAC side: responses to our INVITE (RFC 3261 §13.2.2), forks, CANCEL (§9.1).
extension InviteUsage {
    /// A response to the current initial INVITE.
    mutating func inviteResponse(_ response: SIPResponse) -> [Action] {
        switch response.statusCode {
        case 100...199: provisional(response)
        case 200...299: inviteAccepted(response)
        default: inviteFailed(response)
        }
    }

    /// §13.2.2.1: 1xx. A tagged 101–199 creates (or updates) that fork's early dialog; a hang-up
    /// requested before any provisional now sends its CANCEL (§9.1).
    private mutating func provisional(_ response: SIPResponse) -> [Action] {
        switch state {
        case .calling, .proceeding, .cancelling:
            break
        case .idle, .incoming, .waitingForACK, .confirmed, .terminating, .terminated:
            return []
        }
        if state == .calling { state = .proceeding }
        if response.statusCode > 100, let invite, let tag = Self.toTag(response) {
            if var early = earlyDialogs[tag] {
                try? early.update(withProvisional: response)
                earlyDialogs[tag] = early
            } else if let early = try? Dialog(uac: invite, response: response) {
                earlyDialogs[tag] = early
            }
        }
        if let reason = hangUpBeforeProvisional {
            hangUpBeforeProvisional = nil
            return cancelOutgoing(reason: reason)
        }
        guard state == .proceeding else { return [] }
        if response.statusCode == 100 { return [.event(.trying)] }
        if let body = SessionBody(body: response.bodyBytes, headers: response.headers) {
            return [.event(.earlyMedia(body))]
        }
        return [.event(.ringing)]
    }

    /// §13.2.2.4: a 2xx. The first one confirms its fork's dialog and is ACKed; a retransmission
    /// is ACKed again; a 2xx from another fork is ACKed and released with BYE. A 2xx that wins
    /// the race against our CANCEL is ACKed, then BYEd (§9.1).
    private mutating func inviteAccepted(_ response: SIPResponse) -> [Action] {
        guard let tag = Self.toTag(response), let invite else { return [] }
        if let ack = acks[AckKey(remoteTag: tag, sequence: inviteSequence)] { return [.sendACK(ack)] }
        switch state {
        case .calling, .proceeding, .cancelling:
            break
        case .idle, .incoming, .waitingForACK, .confirmed, .terminating, .terminated:
            return releaseFork(response, tag: tag)
        }
        let confirmed: Dialog
        do {
            if var early = earlyDialogs[tag] {
                try early.confirm(with: response)
                confirmed = early
            } else {
                confirmed = try Dialog(uac: invite, response: response)
            }
        } catch {
            state = .terminated
            return cancelAllTimers() + emitEnd(.failed(status: response.statusCode, reason: "unusable 2xx: \(error)"))
        }
        dialog = confirmed
        earlyDialogs = [:]
        peerAllowsUpdate = response.headers.allow.contains(.update)
        var actions: [Action] = [
            .cancelTimer(.noAnswer), .cancelTimer(.cancelTimeout),
            .sendACK(makeACK(in: confirmed, sequence: inviteSequence)),
        ]
        let wasCancelling = state == .cancelling || hangUpBeforeProvisional != nil
        state = .confirmed
        if wasCancelling {
            hangUpBeforeProvisional = nil
            return actions + sendBye(reason: cancelOutcome)
        }
        actions.append(.event(.answered(SessionBody(body: response.bodyBytes, headers: response.headers))))
        actions += applySessionTimer(fromResponse: response)
        return actions
    }

    /// §13.2.2.4: a 2xx from a fork we did not keep: ACK it, then BYE it.
    private mutating func releaseFork(_ response: SIPResponse, tag: String) -> [Action] {
        guard let invite, var fork = try? Dialog(uac: invite, response: response) else { return [] }
        let ack = makeACK(in: fork, sequence: inviteSequence)
        let bye = fork.makeRequest(
            .bye, via: binding.via(branch: ids.branch()), contact: nil,
            headers: [(.userAgent, settings.userAgent)], ids: ids)
        return [.sendACK(ack), .sendRequest(bye), .event(.forkReleased(remoteTag: tag))]
    }

    /// §13.2.2.3: a final failure (the transaction ACKs it). 401/407 and 422 are retried.
    private mutating func inviteFailed(_ response: SIPResponse) -> [Action] {
        switch state {
        case .calling, .proceeding, .cancelling:
            break
        case .idle, .incoming, .waitingForACK, .confirmed, .terminating, .terminated:
            return []
        }
        earlyDialogs = [:]
        let status = response.statusCode
        if state == .cancelling || hangUpBeforeProvisional != nil {
            state = .terminated
            return cancelAllTimers() + emitEnd(cancelOutcome)
        }
        switch status {
        case 401, 407:
            guard answerChallenge(response) else { break }
            inviteSequence &+= 1
            state = .calling
            return [.event(.challenged(status: status))] + sendInvite()
        case 422:
            // RFC 4028 §7.4: retry with the server's Min-SE.
            guard let minimum = SessionExpires.minSE(of: response.headers),
                minimum > (requestedSessionExpires ?? 0)
            else { break }
            requestedSessionExpires = minimum
            currentMinSE = max(currentMinSE, minimum)
            inviteSequence &+= 1
            state = .calling
            return sendInvite()
        default:
            break
        }
        state = .terminated
        let reason: InviteEndReason =
            (status == 401 || status == 407)
            ? .authenticationFailed(status: status)
            : .forFailure(status: status, reason: response.reasonPhrase)
        return cancelAllTimers() + emitEnd(reason)
    }

    /// A 2xx for an INVITE that is no longer current: a retransmission for an answered
    /// re-INVITE is ACKed again; a first 2xx for a re-INVITE we abandoned (BYE sent meanwhile) is
    /// still ACKed, so the peer stops retransmitting (§13.2.2.4).
    mutating func strayInviteResponse(_ response: SIPResponse, sequence: UInt32) -> [Action] {
        guard (200...299).contains(response.statusCode), let tag = Self.toTag(response) else { return [] }
        if let ack = acks[AckKey(remoteTag: tag, sequence: sequence)] { return [.sendACK(ack)] }
        guard let current = dialog, current.matches(response) else { return [] }
        return [.sendACK(makeACK(in: current, sequence: sequence))]
    }

    /// §9.1: cancel our unanswered INVITE: at once after a provisional, else as soon as one
    /// arrives. The outcome (`.cancelled` or `.noAnswer`) is reported with the 487.
    mutating func cancelOutgoing(reason: InviteEndReason) -> [Action] {
        switch state {
        case .calling:
            hangUpBeforeProvisional = reason
            cancelOutcome = reason
            return [.cancelTimer(.noAnswer)]
        case .proceeding:
            guard let cancel = makeCancel() else { return [] }
            state = .cancelling
            cancelOutcome = reason
            return [
                .cancelTimer(.noAnswer), .sendRequest(cancel),
                .startTimer(.cancelTimeout, settings.timers.transactionTimeout),
            ]
        case .idle, .cancelling, .incoming, .waitingForACK, .confirmed, .terminating, .terminated:
            return []
        }
    }

    /// §22.2: whether a 401/407 deserves a resend with credentials.
    mutating func answerChallenge(_ response: SIPResponse) -> Bool {
        guard digest != nil else { return false }
        let kind: DigestChallengeKind = response.statusCode == 407 ? .proxy : .server
        let values = response.headers.values(SIPHeaderName(kind.challengeHeaderName))
        switch digest!.receive(challenges: values, kind: kind) {
        case .retry: return true
        case .giveUp: return false
        }
    }

    static func toTag(_ response: SIPResponse) -> String? { (try? response.headers.toTag()) ?? nil }
}

extension InviteUsage {
    /// UAC, before ``start()``: replaces the INVITE's offer — the media layer finished gathering
    /// candidates (ICE without trickle, RFC 8445 §5.1.1.2) after the usage was made.
    public mutating func replaceInitialOffer(_ offer: SessionBody) throws(InviteError) {
        guard role == .uac, state == .idle else {
            throw InviteError(.invalidState, "the INVITE's offer can change only before it is sent (\(state))")
        }
        localBody = offer
    }
}

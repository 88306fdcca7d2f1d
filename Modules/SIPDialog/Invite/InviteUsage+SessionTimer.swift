import SIPCore

/// RFC 4028 session timers: negotiated from the 2xx (as UAC of a transaction) or from the
/// request we answer (as UAS), refreshed at half the interval by the refresher, BYE on expiry.
extension InviteUsage {
    /// §7.2 / §7.4: the 2xx to our INVITE, re-INVITE or UPDATE. With Session-Expires, the timer
    /// is (re)armed, `refresher=uac` (or none) meaning us; without it, no timer (§7.4).
    mutating func applySessionTimer(fromResponse response: SIPResponse) -> [Action] {
        guard settings.sessionTimers, let granted = SessionExpires.of(response.headers) else { return disarm() }
        return arm(SessionTimer(interval: granted.interval, localRefresher: granted.refresher != .uas))
    }

    /// §9: answering a request (INVITE, re-INVITE, UPDATE): with Session-Expires, our 2xx echoes
    /// it with the refresher (the request's, else `uac` when the peer supports timers, else us)
    /// and `Require: timer` when the peer refreshes; without it, no timer.
    mutating func sessionTimerAnswer(for request: SIPRequest) -> (headers: [(SIPHeaderName, String)], actions: [Action])
    {
        guard settings.sessionTimers, let asked = SessionExpires.of(request.headers) else { return ([], disarm()) }
        let peerSupports = request.headers.supported.contains("timer") || request.headers.require.contains("timer")
        let refresher: SessionExpires.Refresher = asked.refresher ?? (peerSupports ? .uac : .uas)
        var headers: [(SIPHeaderName, String)] = [
            (.sessionExpires, SessionExpires(interval: asked.interval, refresher: refresher).description)
        ]
        if refresher == .uac { headers.append((.require, "timer")) }
        return (headers, arm(SessionTimer(interval: asked.interval, localRefresher: refresher == .uas)))
    }

    /// §5 / §6: a 422 when the requested interval is below our Min-SE.
    func sessionIntervalTooSmall(_ request: SIPRequest) -> SIPResponse? {
        guard settings.sessionTimers, let asked = SessionExpires.of(request.headers),
            asked.interval < settings.minSessionExpires
        else { return nil }
        return makeResponse(
            to: request, status: 422, reason: "Session Interval Too Small",
            extra: [(SessionExpires.minSEHeader, String(settings.minSessionExpires))])
    }

    /// §7.4: Session-Expires and Min-SE for our re-INVITE / UPDATE: the interval in force with
    /// the refresher kept on the same side.
    func sessionTimerRequestHeaders() -> [(SIPHeaderName, String)] {
        guard settings.sessionTimers else { return [] }
        if let timer = sessionTimer {
            let refresher: SessionExpires.Refresher = timer.localRefresher ? .uac : .uas
            return [
                (.sessionExpires, SessionExpires(interval: timer.interval, refresher: refresher).description),
                (SessionExpires.minSEHeader, String(currentMinSE)),
            ]
        }
        if let interval = requestedSessionExpires {
            return [
                (.sessionExpires, SessionExpires(interval: interval).description),
                (SessionExpires.minSEHeader, String(currentMinSE)),
            ]
        }
        return []
    }

    /// §7.4 / §9: the refresher's timer fired: UPDATE without body (when the peer allows it, or
    /// as configured) or a re-INVITE with our current session description.
    mutating func sendSessionRefresh() -> [Action] {
        guard state == .confirmed, let timer = sessionTimer, timer.localRefresher else { return [] }
        if outgoingOffer != nil || incomingOffer != nil || pending2xx != nil || glareOffer != nil {
            return [.startTimer(.sessionRefresh, settings.timers.t2)]
        }
        let useUpdate: Bool
        switch settings.refreshMethod {
        case .automatic: useUpdate = peerAllowsUpdate || localBody == nil
        case .update: useUpdate = true
        case .invite: useUpdate = localBody == nil
        }
        return sendOffer(
            OutgoingOffer(
                method: useUpdate ? .update : .invite, body: useUpdate ? nil : localBody,
                isRefresh: true))
    }

    /// Starts (or restarts) the refresh and expiry timers for `timer`.
    private mutating func arm(_ timer: SessionTimer) -> [Action] {
        sessionTimer = timer
        var actions: [Action] = [.cancelTimer(.sessionRefresh)]
        if timer.localRefresher { actions.append(.startTimer(.sessionRefresh, timer.refreshDelay)) }
        actions.append(.startTimer(.sessionExpiry, timer.expiryDelay))
        actions.append(.event(.sessionTimer(interval: timer.interval, localRefresher: timer.localRefresher)))
        return actions
    }

    private mutating func disarm() -> [Action] {
        guard sessionTimer != nil else { return [] }
        sessionTimer = nil
        return [.cancelTimer(.sessionRefresh), .cancelTimer(.sessionExpiry)]
    }
}

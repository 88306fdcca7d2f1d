extension TimelineEvent {
    /// The event as one JSON Lines object (`event`, `t`, then the event's fields). Push tokens
    /// appear only in redacted form.
    public func jsonLine(t: Int64) -> String {
        var j: JSONLine
        switch self {
        case .callStart(let call): j = JSONLine(event: "call_start", t: t); j.add("call", call)
        case .qualifySent(let call): j = JSONLine(event: "qualify_sent", t: t); j.add("call", call)
        case .qualifyOK(let call): j = JSONLine(event: "qualify_ok", t: t); j.add("call", call)
        case .qualifyTimeout(let call): j = JSONLine(event: "qualify_timeout", t: t); j.add("call", call)
        case .inviteSent(let call, let direct):
            j = JSONLine(event: "invite_sent", t: t); j.add("call", call); j.add("direct", direct)
        case .inviteReceived(let call): j = JSONLine(event: "invite_received", t: t); j.add("call", call)
        case .sipLost(let call): j = JSONLine(event: "sip_lost", t: t); j.add("call", call)
        case .pushSent(let call, let push, let content, let expiration, let token):
            j = JSONLine(event: "push_sent", t: t); j.add("call", call); j.add("push_id", push)
            j.add("content", content.rawValue); j.add("apns_expiration", expiration); j.add("token", token.redacted)
        case .alertSent: j = JSONLine(event: "alert_sent", t: t)
        case .apnsRejected(let push, let reason):
            j = JSONLine(event: "apns_rejected", t: t); j.add("push_id", push); j.add("reason", reason.rawValue)
        case .apnsStored(let push): j = JSONLine(event: "apns_stored", t: t); j.add("push_id", push)
        case .apnsDropped(let push): j = JSONLine(event: "apns_dropped", t: t); j.add("push_id", push)
        case .apnsDelivered(let push, let age):
            j = JSONLine(event: "apns_delivered", t: t); j.add("push_id", push); j.add("age_ms", age)
        case .pushSuppressed(let push): j = JSONLine(event: "push_suppressed", t: t); j.add("push_id", push)
        case .appLaunch(let from, let push):
            j = JSONLine(event: "app_launch", t: t); j.add("from", from.rawValue); j.add("push_id", push)
        case .handlerStart(let push): j = JSONLine(event: "handler_start", t: t); j.add("push_id", push)
        case .handlerReturn(let push, let reported):
            j = JSONLine(event: "handler_return", t: t); j.add("push_id", push); j.add("reported", reported)
        case .ackSent(let push): j = JSONLine(event: "ack_sent", t: t); j.add("push_id", push)
        case .ackReceived(let call, let push):
            j = JSONLine(event: "ack_received", t: t); j.add("call", call); j.add("push_id", push)
        case .ackWindowExpired(let call): j = JSONLine(event: "ack_window_expired", t: t); j.add("call", call)
        case .ackResponse(let push, let active):
            j = JSONLine(event: "ack_response", t: t); j.add("push_id", push); j.add("call_active", active)
        case .callkitReport(let uuid, let call, let push):
            j = JSONLine(event: "callkit_report", t: t); j.add("uuid", uuid); j.add("call", call); j.add("push_id", push)
        case .callkitUpdate(let uuid): j = JSONLine(event: "callkit_update", t: t); j.add("uuid", uuid)
        case .callkitEnd(let uuid, let reason):
            j = JSONLine(event: "callkit_end", t: t); j.add("uuid", uuid); j.add("reason", reason.rawValue)
        case .inviteClaimed(let call, let uuid):
            j = JSONLine(event: "invite_claimed", t: t); j.add("call", call); j.add("uuid", uuid)
        case .userAnswer(let uuid): j = JSONLine(event: "user_answer", t: t); j.add("uuid", uuid)
        case .answerFulfilled(let uuid): j = JSONLine(event: "answer_fulfilled", t: t); j.add("uuid", uuid)
        case .answerFailed(let uuid): j = JSONLine(event: "answer_failed", t: t); j.add("uuid", uuid)
        case .answerTimedOut(let uuid): j = JSONLine(event: "answer_timed_out", t: t); j.add("uuid", uuid)
        case .okSent(let call): j = JSONLine(event: "ok_sent", t: t); j.add("call", call)
        case .callConnected(let call, let delay):
            j = JSONLine(event: "call_connected", t: t); j.add("call", call); j.add("answer_delay_ms", delay)
        case .appKilled(let strikes):
            j = JSONLine(event: "app_killed", t: t); j.add("strikes", strikes)
            j.add("reason", "never posted an incoming call to the system after receiving a PushKit VoIP push")
        case .blackout(let strikes): j = JSONLine(event: "push_blackout", t: t); j.add("strikes", strikes)
        case .registerSent: j = JSONLine(event: "register_sent", t: t)
        case .keychainDenied: j = JSONLine(event: "keychain_denied", t: t)
        case .registerReceived(let granted):
            j = JSONLine(event: "register_received", t: t); j.add("granted_expires", granted)
        case .registrationResult(let ok): j = JSONLine(event: "registration_result", t: t); j.add("success", ok)
        case .registerWaitExpired(let call): j = JSONLine(event: "register_wait_expired", t: t); j.add("call", call)
        case .callerLeft(let call): j = JSONLine(event: "caller_left", t: t); j.add("call", call)
        case .cancelSent(let call): j = JSONLine(event: "cancel_sent", t: t); j.add("call", call)
        case .cancelReceived(let call): j = JSONLine(event: "cancel_received", t: t); j.add("call", call)
        case .failover(let call, let reason, let after, let bound):
            j = JSONLine(event: "failover", t: t); j.add("call", call); j.add("reason", reason.rawValue)
            j.add("after_ms", after); j.add("bound_ms", bound)
        case .violation(let v):
            j = JSONLine(event: "violation", t: t); j.add("rule", v.rule.rawValue); j.add("kind", v.kind.rawValue)
            if v.call >= 0 { j.add("call", v.call) }
            if v.push >= 0 { j.add("push_id", v.push) }
            if v.uuid >= 0 { j.add("uuid", v.uuid) }
            j.add("detail", v.kind.detail)
        case .connectivity(let online): j = JSONLine(event: "connectivity", t: t); j.add("online", online)
        case .appState(let state): j = JSONLine(event: "app_state", t: t); j.add("state", state.rawValue)
        case .deviceLock(let locked): j = JSONLine(event: "device_lock", t: t); j.add("locked", locked)
        case .tokenIssued(let token): j = JSONLine(event: "token_issued", t: t); j.add("token", token.redacted)
        case .tokenInvalidated: j = JSONLine(event: "token_invalidated", t: t)
        case .tokenUploaded(let token): j = JSONLine(event: "token_uploaded", t: t); j.add("token", token.redacted)
        case .tokenDeleted: j = JSONLine(event: "token_deleted", t: t)
        }
        return j.string
    }
}

extension ViolationKind {
    /// One line for people: what was broken and where the rule comes from.
    public var detail: String {
        switch self {
        case .notReportedBeforeReturn:
            "handler returned without reportNewIncomingCall; iOS kills the app (iOS 13 SDK PushKit rule)"
        case .networkingBeforeReport: "networking before reportNewIncomingCall (only the push-ack may come first)"
        case .mustReportNotReported: "mustReport was true and the push was not reported before return (iOS 26.4)"
        case .pushBlackout: "strike threshold reached: iOS stops delivering VoIP pushes to the app"
        case .nonCallVoIPPush: "VoIP push used for a non-call (message / keep-alive); use an alert push"
        case .duplicateSession: "INVITE opened a second call while the push's placeholder was pending"
        case .placeholderNotEnded: "no INVITE within the placeholder timeout and the call was not ended (failed)"
        case .answerFulfilledBeforeOK: "answer action fulfilled before the 200 OK was sent"
        case .answerActionTimedOut: "answer action neither fulfilled nor failed before CallKit's timeout"
        case .callerLeftStillRinging: "caller left (CANCEL / ack says gone) but the call still rings"
        case .unusablePushNotEnded: "unreadable / unknown-origin / non-call push reported but not ended at once"
        case .staleDeliveryRang: "push delivered late (stored or past stale_after_ms) made the phone ring"
        case .apnsRequestRejected: "APNs refused the request headers (push type, topic, priority or size)"
        case .failoverTooSlow: "failover later than failover_bound_ms"
        }
    }
}

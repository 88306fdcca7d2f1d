/// One field value of a timeline line.
public enum JSONField: Sendable, Hashable {
    /// An integer.
    case number(Int64)
    /// A string.
    case text(String)
    /// A boolean.
    case flag(Bool)

    /// An integer field from any integer type.
    public static func int<I: BinaryInteger>(_ value: I) -> JSONField { .number(Int64(value)) }
}

extension TimelineEvent {
    /// The event as one JSON Lines object (`event`, `t`, then the event's fields). Push tokens
    /// appear only in redacted form. A `uuid` the client named (`uuidNames`, a client process's
    /// own UUID strings) is printed as that string, so the client can find its call.
    public func jsonLine(t: Int64, uuidNames: [Int32: String] = [:]) -> String {
        let (name, fields) = jsonFields
        var line = JSONLine(event: name, t: t)
        for (key, value) in fields {
            switch value {
            case .number(let n) where key == "uuid" && !uuidNames.isEmpty:
                if let own = Int32(exactly: n).flatMap({ uuidNames[$0] }) { line.add(key, own) } else { line.add(key, n) }
            case .number(let n): line.add(key, n)
            case .text(let s): line.add(key, s)
            case .flag(let b): line.add(key, b)
            }
        }
        return line.string
    }

    /// The stable `event` name and the fields, in output order (docs/man/astra-pushsim.md).
    public var jsonFields: (name: String, fields: [(String, JSONField)]) {
        switch self {
        case .callStart(let call): return ("call_start", [("call", .int(call))])
        case .qualifySent(let call): return ("qualify_sent", [("call", .int(call))])
        case .qualifyOK(let call): return ("qualify_ok", [("call", .int(call))])
        case .qualifyTimeout(let call): return ("qualify_timeout", [("call", .int(call))])
        case .inviteSent(let call, let direct):
            return ("invite_sent", [("call", .int(call)), ("direct", .flag(direct))])
        case .inviteReceived(let call): return ("invite_received", [("call", .int(call))])
        case .sipLost(let call): return ("sip_lost", [("call", .int(call))])
        case .pushSent(let call, let push, let content, let expiration, let token):
            return (
                "push_sent",
                [
                    ("call", .int(call)), ("push_id", .int(push)), ("content", .text(content.rawValue)),
                    ("apns_expiration", .int(expiration)), ("token", .text(token.redacted)),
                ]
            )
        case .alertSent: return ("alert_sent", [])
        case .apnsRejected(let push, let reason):
            return ("apns_rejected", [("push_id", .int(push)), ("reason", .text(reason.rawValue))])
        case .apnsStored(let push): return ("apns_stored", [("push_id", .int(push))])
        case .apnsDropped(let push): return ("apns_dropped", [("push_id", .int(push))])
        case .apnsLost(let push): return ("apns_lost", [("push_id", .int(push))])
        case .apnsDelivered(let push, let age):
            return ("apns_delivered", [("push_id", .int(push)), ("age_ms", .int(age))])
        case .pushSuppressed(let push): return ("push_suppressed", [("push_id", .int(push))])
        case .appLaunch(let from, let push):
            return ("app_launch", [("from", .text(from.rawValue)), ("push_id", .int(push))])
        case .handlerStart(let push): return ("handler_start", [("push_id", .int(push))])
        case .sealCheck(let push, let verdict):
            return ("seal_check", [("push_id", .int(push)), ("verdict", .text(verdict.rawValue))])
        case .callerShown(let uuid): return ("caller_shown", [("uuid", .int(uuid))])
        case .grantsStopped: return ("grants_stopped", [])
        case .grantRenewed(let seconds, let expires):
            return ("grant_renewed", [("lifetime_s", .int(seconds)), ("expires_ms", .int(expires))])
        case .grantExpired(let gateway): return ("grant_expired", [("gateway", .int(gateway))])
        case .handlerReturn(let push, let reported):
            return ("handler_return", [("push_id", .int(push)), ("reported", .flag(reported))])
        case .ackSent(let push): return ("ack_sent", [("push_id", .int(push))])
        case .ackReceived(let call, let push): return ("ack_received", [("call", .int(call)), ("push_id", .int(push))])
        case .ackWindowExpired(let call): return ("ack_window_expired", [("call", .int(call))])
        case .ackResponse(let push, let active):
            return ("ack_response", [("push_id", .int(push)), ("call_active", .flag(active))])
        case .callkitReport(let uuid, let call, let push):
            return ("callkit_report", [("uuid", .int(uuid)), ("call", .int(call)), ("push_id", .int(push))])
        case .callkitUpdate(let uuid): return ("callkit_update", [("uuid", .int(uuid))])
        case .callkitEnd(let uuid, let reason):
            return ("callkit_end", [("uuid", .int(uuid)), ("reason", .text(reason.rawValue))])
        case .inviteClaimed(let call, let uuid):
            return ("invite_claimed", [("call", .int(call)), ("uuid", .int(uuid))])
        case .userAnswer(let uuid): return ("user_answer", [("uuid", .int(uuid))])
        case .userDecline(let uuid): return ("user_decline", [("uuid", .int(uuid))])
        case .declineSent(let call): return ("decline_sent", [("call", .int(call))])
        case .answerFulfilled(let uuid): return ("answer_fulfilled", [("uuid", .int(uuid))])
        case .answerFailed(let uuid): return ("answer_failed", [("uuid", .int(uuid))])
        case .answerTimedOut(let uuid): return ("answer_timed_out", [("uuid", .int(uuid))])
        case .okSent(let call): return ("ok_sent", [("call", .int(call))])
        case .callConnected(let call, let delay):
            return ("call_connected", [("call", .int(call)), ("answer_delay_ms", .int(delay))])
        case .appKilled(let strikes):
            return (
                "app_killed",
                [
                    ("strikes", .int(strikes)),
                    (
                        "reason",
                        .text("never posted an incoming call to the system after receiving a PushKit VoIP push")
                    ),
                ]
            )
        case .blackout(let strikes): return ("push_blackout", [("strikes", .int(strikes))])
        case .fetchSent: return ("fetch_sent", [])
        case .registerSent: return ("register_sent", [])
        case .keychainDenied: return ("keychain_denied", [])
        case .registerReceived(let granted): return ("register_received", [("granted_expires", .int(granted))])
        case .registrationResult(let ok): return ("registration_result", [("success", .flag(ok))])
        case .registerWaitExpired(let call): return ("register_wait_expired", [("call", .int(call))])
        case .callerLeft(let call): return ("caller_left", [("call", .int(call))])
        case .cancelSent(let call): return ("cancel_sent", [("call", .int(call))])
        case .cancelReceived(let call): return ("cancel_received", [("call", .int(call))])
        case .goneNoticeSent(let call): return ("gone_notice_sent", [("call", .int(call))])
        case .goneNoticeReceived(let call): return ("gone_notice_received", [("call", .int(call))])
        case .failover(let call, let reason, let after, let bound):
            return (
                "failover",
                [
                    ("call", .int(call)), ("reason", .text(reason.rawValue)), ("after_ms", .int(after)),
                    ("bound_ms", .int(bound)),
                ]
            )
        case .violation(let v):
            var fields: [(String, JSONField)] = [("rule", .text(v.rule.rawValue)), ("kind", .text(v.kind.rawValue))]
            if v.call >= 0 { fields.append(("call", .int(v.call))) }
            if v.push >= 0 { fields.append(("push_id", .int(v.push))) }
            if v.uuid >= 0 { fields.append(("uuid", .int(v.uuid))) }
            fields.append(("detail", .text(v.kind.detail)))
            return ("violation", fields)
        case .connectivity(let online): return ("connectivity", [("online", .flag(online))])
        case .appState(let state): return ("app_state", [("state", .text(state.rawValue))])
        case .deviceLock(let locked): return ("device_lock", [("locked", .flag(locked))])
        case .tokenIssued(let token): return ("token_issued", [("token", .text(token.redacted))])
        case .tokenInvalidated: return ("token_invalidated", [])
        case .tokenUploaded(let token): return ("token_uploaded", [("token", .text(token.redacted))])
        case .tokenDeleted: return ("token_deleted", [])
        }
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
        case .rangAfterDecline: "the user declined the call, then its INVITE rang again"
        case .unusablePushNotEnded: "unreadable / unknown-origin / non-call push reported but not ended at once"
        case .sealedCallerShown:
            "sealed push the phone could not trust (unknown gateway, missing key, did not open, late) was shown with a caller; report it as the app"
        case .grantsNotStopped:
            "iOS invalidated the VoIP token and the app did not tell its gateways to stop (DELETE voip-push-grant)"
        case .grantTooLong: "the app asked a call grant longer than 15 days; the gateway refused it"
        case .grantStorm: "the app sent a new call grant within 15 minutes of the last"
        case .grantNotRenewed:
            "the app launched with less than 7 days left on a gateway's call grant and did not renew it (by its expiry or the end of the run)"
        case .sealedPushTrusted:
            "sealed push the phone could not trust was acked or left ringing; report it as the app and end it at once"
        case .staleDeliveryRang: "push delivered late (stored or past stale_after_ms) made the phone ring"
        case .apnsRequestRejected: "APNs refused the request headers (push type, topic, priority or size)"
        case .failoverTooSlow: "failover later than failover_bound_ms"
        case .clientNoAnswer: "the client process did not answer the callback within --client-timeout-ms"
        case .clientExited: "the client process exited instead of answering the callback"
        case .clientBadAnswer: "the client process answered with a line that is not a valid answer"
        case .clientUnsolicitedAnswer: "the client process wrote an answer line nobody asked for (one line per callback)"
        }
    }
}

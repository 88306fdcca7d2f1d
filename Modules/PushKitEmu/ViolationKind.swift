/// Which part of a rule was broken.
public enum ViolationKind: String, Sendable, Hashable, Codable {
    /// R1: the handler returned without `reportNewIncomingCall` (iOS kills the app).
    case notReportedBeforeReturn = "not_reported_before_return"
    /// R1: networking (other than the ack) before the report.
    case networkingBeforeReport = "networking_before_report"
    /// R4: a `mustReport: true` push was not reported before return.
    case mustReportNotReported = "must_report_not_reported"
    /// R2: the strike threshold was reached; VoIP pushes are no longer delivered.
    case pushBlackout = "push_blackout"
    /// R3: a VoIP push carried a message or keep-alive.
    case nonCallVoIPPush = "non_call_voip_push"
    /// R5: the INVITE opened a second call while the push's placeholder was pending.
    case duplicateSession = "duplicate_session"
    /// R5: a placeholder had no INVITE within the placeholder timeout and was not ended `failed`.
    case placeholderNotEnded = "placeholder_not_ended"
    /// R5: the answer action was fulfilled before the 200 OK was sent.
    case answerFulfilledBeforeOK = "answer_fulfilled_before_ok"
    /// R5: the answer action was neither fulfilled nor failed within the CXAction timeout.
    case answerActionTimedOut = "answer_action_timed_out"
    /// R5: the caller left (CANCEL / ack says gone) and the call kept ringing.
    case callerLeftStillRinging = "caller_left_still_ringing"
    /// R5: the user declined the call and its INVITE rang again.
    case rangAfterDecline = "rang_after_decline"
    /// R5: an unreadable / unknown-origin / non-call push was reported but not ended at once.
    case unusablePushNotEnded = "unusable_push_not_ended"
    /// R5: a sealed push the phone could not trust (unknown gateway, missing key, did not open,
    /// late) was shown with a caller's name or number instead of the app's name.
    case sealedCallerShown = "sealed_caller_shown"
    /// R5: a sealed push the phone could not trust was acked or left ringing instead of ended at once.
    case sealedPushTrusted = "sealed_push_trusted"
    /// R6: a push delivered late (stored, or past `staleAfterMs`) made the phone ring.
    case staleDeliveryRang = "stale_delivery_rang"
    /// R6: APNs refused the request's headers or size.
    case apnsRequestRejected = "apns_request_rejected"
    /// GRANT: the token was invalidated and the app did not tell its gateways to stop.
    case grantsNotStopped = "grants_not_stopped"
    /// GRANT: a `renew_grant` asked more than 15 days (the gateway refuses it).
    case grantTooLong = "grant_too_long"
    /// GRANT: a new grant within 15 minutes of the last (the phone's storm rule).
    case grantStorm = "grant_storm"
    /// GRANT: the app launched with less than 7 days left on a grant and it was still not
    /// renewed at its expiry or at the end of the run.
    case grantNotRenewed = "grant_not_renewed"
    /// WAKE: failover later than the configured bound.
    case failoverTooSlow = "failover_too_slow"
    /// CLIENT: the client process did not answer a callback within the bound (a hung handler).
    case clientNoAnswer = "client_no_answer"
    /// CLIENT: the client process exited instead of answering.
    case clientExited = "client_exited"
    /// CLIENT: the client process answered with something that is not a valid answer.
    case clientBadAnswer = "client_bad_answer"
    /// CLIENT: the client process wrote an answer line nobody asked for (two lines to one callback).
    case clientUnsolicitedAnswer = "client_unsolicited_answer"

    /// The rule this kind belongs to.
    public var rule: RuleID {
        switch self {
        case .notReportedBeforeReturn, .networkingBeforeReport: .r1
        case .mustReportNotReported: .r4
        case .pushBlackout: .r2
        case .nonCallVoIPPush: .r3
        case .duplicateSession, .placeholderNotEnded, .answerFulfilledBeforeOK, .answerActionTimedOut,
            .callerLeftStillRinging, .unusablePushNotEnded, .rangAfterDecline, .sealedCallerShown, .sealedPushTrusted:
            .r5
        case .staleDeliveryRang, .apnsRequestRejected: .r6
        case .failoverTooSlow: .wake
        case .grantsNotStopped, .grantTooLong, .grantStorm, .grantNotRenewed: .grant
        case .clientNoAnswer, .clientExited, .clientBadAnswer, .clientUnsolicitedAnswer: .client
        }
    }
}

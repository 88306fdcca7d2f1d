/// The rules of PUSH-RULES.md, plus the server's wake-decision bound.
public enum RuleID: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    /// Report every VoIP push to CallKit before the handler returns; no networking first.
    case r1 = "R1"
    /// Repeated R1 failures → iOS stops delivering VoIP pushes (blackout).
    case r2 = "R2"
    /// VoIP pushes are for calls only.
    case r3 = "R3"
    /// iOS 26.4 `mustReport`: when true, R1 applies.
    case r4 = "R4"
    /// Gap handling between push and INVITE (placeholder, duplicates, answer, CANCEL, odd pushes).
    case r5 = "R5"
    /// APNs delivery: headers, size, `apns-expiration` and stale delivery.
    case r6 = "R6"
    /// Server wake decision v2: failover within the configured bound.
    case wake = "WAKE"

    public static func < (lhs: RuleID, rhs: RuleID) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

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
    /// R6: a push delivered late (stored, or past `staleAfterMs`) made the phone ring.
    case staleDeliveryRang = "stale_delivery_rang"
    /// R6: APNs refused the request's headers or size.
    case apnsRequestRejected = "apns_request_rejected"
    /// WAKE: failover later than the configured bound.
    case failoverTooSlow = "failover_too_slow"

    /// The rule this kind belongs to.
    public var rule: RuleID {
        switch self {
        case .notReportedBeforeReturn, .networkingBeforeReport: .r1
        case .mustReportNotReported: .r4
        case .pushBlackout: .r2
        case .nonCallVoIPPush: .r3
        case .duplicateSession, .placeholderNotEnded, .answerFulfilledBeforeOK, .answerActionTimedOut,
            .callerLeftStillRinging, .unusablePushNotEnded, .rangAfterDecline:
            .r5
        case .staleDeliveryRang, .apnsRequestRejected: .r6
        case .failoverTooSlow: .wake
        }
    }
}

/// One rule violation: what, when (virtual ms), and which call / push / CallKit call.
public struct Violation: Sendable, Hashable {
    /// The broken part of the rule.
    public var kind: ViolationKind
    /// Virtual time (ms) it was detected.
    public var t: Int64
    /// Server call index, or -1.
    public var call: Int32
    /// Push-id, or -1.
    public var push: Int32
    /// CallKit call, or -1.
    public var uuid: Int32

    /// The rule broken.
    public var rule: RuleID { kind.rule }

    public init(_ kind: ViolationKind, t: Int64, call: Int32 = -1, push: Int32 = -1, uuid: Int32 = -1) {
        self.kind = kind
        self.t = t
        self.call = call
        self.push = push
        self.uuid = uuid
    }
}

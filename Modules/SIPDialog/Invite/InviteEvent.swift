/// What happened to a call's signalling, for the CallSession actor and the tools' JSON events.
/// Hold and resume are media decisions: re-INVITE offers and answers are reported as they are.
public enum InviteEvent: Sendable, Hashable {
    /// UAC: 100 Trying (RFC 3261 §13.2.2.1).
    case trying
    /// UAC: 180/181/182 without a body.
    case ringing
    /// UAC: 183, or a 18x with a body: the callee's early-media answer (RFC 3261 §13.2.1, RFC 3960).
    case earlyMedia(SessionBody)
    /// UAC: a 401/407 was answered; the INVITE (or in-dialog request) went out again (§22.2).
    case challenged(status: Int)
    /// UAC: the 2xx to our INVITE, with its answer; the ACK was sent (§13.2.2.4).
    case answered(SessionBody?)
    /// UAS: the ACK for our 2xx arrived (§13.3.1.4); its body answers an offer we put in the 2xx.
    case confirmed(SessionBody?)
    /// UAC: a 2xx from another fork was ACKed and released with a BYE (§13.2.2.4).
    case forkReleased(remoteTag: String)
    /// A re-INVITE or UPDATE with an offer (nil: an offerless re-INVITE asking for ours). Answer
    /// with ``InviteUsage/answerOffer(_:)`` or ``InviteUsage/rejectOffer(status:)`` (§14.2).
    case remoteOffer(SessionBody?)
    /// Our re-INVITE was accepted with this answer (§14.1); or, for an offerless re-INVITE we
    /// answered, the ACK brought the peer's answer.
    case offerAnswered(SessionBody?)
    /// Our re-INVITE failed with this status; the previous session stays in force (§14.1).
    case offerRejected(status: Int)
    /// Our re-INVITE met glare (491); it is retried after `retryAfter` (§14.1).
    case glare(retryAfter: Duration)
    /// An INFO arrived in the dialog and was answered 200 (RFC 6086).
    case info(SessionBody?)
    /// RFC 4028: a session timer is in force (negotiated or refreshed): `interval` seconds, and
    /// whether this side sends the refreshes.
    case sessionTimer(interval: UInt32, localRefresher: Bool)
    /// The call is over (sent once). Signalling may still finish (a BYE response) afterwards.
    case ended(InviteEndReason)
}

/// Why a call ended.
public enum InviteEndReason: Sendable, Hashable, CustomStringConvertible {
    /// We sent BYE (or declined an incoming call with ``InviteUsage/hangUp()``).
    case localHangUp
    /// The peer sent BYE.
    case remoteHangUp
    /// 486 Busy Here or 600 Busy Everywhere.
    case busy(status: Int)
    /// 603 Decline.
    case declined
    /// We cancelled before an answer (487 to our INVITE), or the caller cancelled ours (§9.2).
    case cancelled
    /// No answer within ``InviteSettings/noAnswerTimeout``: the INVITE was cancelled.
    case noAnswer
    /// We rejected the incoming INVITE with this status.
    case rejected(status: Int)
    /// §13.3.1.4: our 2xx was never ACKed within 64·T1; a BYE was sent.
    case ackTimeout
    /// RFC 4028 §10: the session expired without a refresh; a BYE was sent.
    case sessionExpired
    /// A transaction timed out (Timer B/F, treated as 408, §8.1.3.1), or an in-dialog 408.
    case timeout
    /// The transport failed (treated as 503, §8.1.3.1).
    case transportError
    /// The credentials were refused or a challenge could not be answered.
    case authenticationFailed(status: Int)
    /// Any other final failure status.
    case failed(status: Int, reason: String)

    /// The final SIP status behind the reason, when there was one.
    public var status: Int? {
        switch self {
        case .busy(let s), .rejected(let s), .authenticationFailed(let s), .failed(let s, _): s
        case .declined: 603
        case .cancelled: 487
        case .localHangUp, .remoteHangUp, .noAnswer, .ackTimeout, .sessionExpired, .timeout, .transportError: nil
        }
    }

    public var description: String {
        switch self {
        case .localHangUp: "local hang-up"
        case .remoteHangUp: "remote hang-up"
        case .busy(let s): "busy (\(s))"
        case .declined: "declined (603)"
        case .cancelled: "cancelled"
        case .noAnswer: "no answer"
        case .rejected(let s): "rejected locally (\(s))"
        case .ackTimeout: "no ACK for the 2xx"
        case .sessionExpired: "session expired"
        case .timeout: "timeout"
        case .transportError: "transport error"
        case .authenticationFailed(let s): "authentication failed (\(s))"
        case .failed(let s, let r): "failed (\(s) \(r))"
        }
    }

    /// RFC 3261 §21 status → end reason for a final failure to our INVITE.
    static func forFailure(status: Int, reason: String) -> InviteEndReason {
        switch status {
        case 486, 600: .busy(status: status)
        case 603: .declined
        case 408: .timeout
        default: .failed(status: status, reason: reason)
        }
    }
}

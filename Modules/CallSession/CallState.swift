/// Where one call is, as the user sees it. The SIP detail (transactions, dialogs, CANCEL races)
/// lives in `InviteUsage`; this is the call-level view that drives media and the tools' events.
public enum CallState: String, Sendable, Hashable, CaseIterable {
    /// Created, nothing sent or received yet.
    case idle
    /// RFC 3261 §13.2.1: our INVITE is out, no provisional with a To tag yet (100 Trying at most).
    case calling
    /// RFC 3261 §13.2.2.1 / §13.3.1.1: 180 received (caller), or we are alerting (callee).
    case ringing
    /// RFC 3960: a 183 (or 18x with SDP) arrived; early media is playing before the answer.
    case early
    /// RFC 3261 §13.2.2.4 / §13.3.1.4: answered; two-way media.
    case active
    /// RFC 3264 §8.4: a re-INVITE put the stream on hold (sendonly / recvonly / inactive).
    case held
    /// We asked to end (BYE, CANCEL or a rejection is in flight).
    case ending
    /// Over; the end reason and statistics were reported.
    case ended
}

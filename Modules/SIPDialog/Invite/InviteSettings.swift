import SIPCore

/// How one call's signalling behaves. Every interval is configuration (T1/T2 come from
/// ``timers``), never a literal in the state machine.
public struct InviteSettings: Sendable, Hashable {
    /// T1/T2 for 2xx retransmission (§13.3.1.4) and 64·T1 waits (ACK, CANCEL).
    public var timers: TransactionTimers = .rfc3261
    /// Cancel an unanswered outgoing INVITE after this long (end reason ``InviteEndReason/noAnswer``).
    public var noAnswerTimeout: Duration? = .seconds(60)
    /// RFC 4028: support session timers (`Supported: timer`; honour Session-Expires when asked).
    public var sessionTimers: Bool = true
    /// RFC 4028 §4: ask for this Session-Expires in our INVITE; nil = only when the peer asks.
    public var requestedSessionExpires: UInt32?
    /// RFC 4028 §5: our Min-SE (never below 90 s); smaller requests get 422.
    public var minSessionExpires: UInt32 = 90
    /// How we refresh when we are the refresher (RFC 4028 §7.4 / §9).
    public var refreshMethod: RefreshMethod = .automatic
    /// `User-Agent` / `Server` value.
    public var userAgent: String = AstraVersion.product()
    /// The methods we accept in a dialog (`Allow`).
    public var allow: String = "INVITE, ACK, CANCEL, BYE, OPTIONS, INFO, UPDATE"

    public init() {}

    /// RFC 4028 session refresh request.
    public enum RefreshMethod: Sendable, Hashable {
        /// UPDATE when the peer's Allow lists it, else re-INVITE.
        case automatic
        case update
        case invite
    }
}

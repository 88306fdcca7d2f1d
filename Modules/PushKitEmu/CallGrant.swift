/// The device-signed call grant one gateway holds for the phone (docs/adr/0151, the peer design in
/// docs/push-wake-rules.md "Call grants"): issued and expiry time, and whether the app owes a
/// renewal. A pure value; the simulation keeps one per joined gateway (``CallKeychain``).
///
/// The rules the phone keeps: the gateway caps a grant at ``CallGrant/maxLifetimeMs`` (15 days);
/// the phone asks ``CallGrant/askLifetimeMs`` (14 days) and renews at a check-in (its launch) once
/// less than ``CallGrant/renewBelowMs`` (7 days) remain; never a new grant within
/// ``CallGrant/stormIntervalMs`` (15 minutes) of the last. A grant past its expiry is gone: the
/// gateway can no longer push to the phone.
public struct CallGrant: Sendable, Hashable {
    /// One day of virtual milliseconds.
    public static let dayMs: Int64 = 86_400_000
    /// The longest grant a gateway accepts (longer: refused, rule GRANT `grant_too_long`).
    public static let maxLifetimeMs: Int64 = 15 * dayMs
    /// What the phone asks for.
    public static let askLifetimeMs: Int64 = 14 * dayMs
    /// A check-in with less than this left owes a renewal (rule GRANT `grant_not_renewed`).
    public static let renewBelowMs: Int64 = 7 * dayMs
    /// No new grant within this of the last (rule GRANT `grant_storm`).
    public static let stormIntervalMs: Int64 = 15 * 60_000

    /// When the gateway got the grant now held (virtual ms; may be before the run began).
    public private(set) var issuedMs: Int64
    /// When it expires.
    public private(set) var expiresMs: Int64
    /// The app checked in with less than ``CallGrant/renewBelowMs`` left and did not renew.
    public private(set) var renewalOwed = false
    /// `grant_not_renewed` was already flagged for the grant now held (one violation per grant).
    public private(set) var notRenewedFlagged = false

    /// A grant the gateway got at `issuedMs`, valid until `expiresMs`.
    public init(issuedMs: Int64, expiresMs: Int64) {
        self.issuedMs = issuedMs
        self.expiresMs = expiresMs
    }

    /// A grant of ``CallGrant/askLifetimeMs`` issued at 0: what a phone that joined holds when a run begins.
    public static var fresh: CallGrant { CallGrant(issuedMs: 0, expiresMs: askLifetimeMs) }

    /// Whether the gateway may still push under it.
    public func live(at now: Int64) -> Bool { now < expiresMs }

    /// Whether less than ``CallGrant/renewBelowMs`` is left (or it expired).
    public func renewalDue(at now: Int64) -> Bool { expiresMs - now < Self.renewBelowMs }

    /// What the gateway made of a renewal.
    public enum Renewal: Sendable, Hashable {
        /// Granted.
        case granted
        /// Granted, but within ``CallGrant/stormIntervalMs`` of the last grant (`grant_storm`).
        case storm
        /// Longer than ``CallGrant/maxLifetimeMs``: refused, the old grant stays (`grant_too_long`).
        case tooLong
    }

    /// The app sent a new grant asking `lifetimeMs` at `now`.
    public mutating func renew(lifetimeMs: Int64, now: Int64) -> Renewal {
        guard lifetimeMs <= Self.maxLifetimeMs else { return .tooLong }
        let storm = now - issuedMs < Self.stormIntervalMs
        issuedMs = now
        expiresMs = now + max(lifetimeMs, 0)
        renewalOwed = false
        notRenewedFlagged = false
        return storm ? .storm : .granted
    }

    /// The app checked in at `now` (launched) and did not renew: a due grant is now owed.
    public mutating func checkedIn(at now: Int64) {
        if renewalDue(at: now) { renewalOwed = true }
    }

    /// At expiry or at the end of the run: whether to flag `grant_not_renewed` (once per grant).
    public mutating func flagNotRenewed() -> Bool {
        guard renewalOwed, !notRenewedFlagged else { return false }
        notRenewedFlagged = true
        return true
    }
}

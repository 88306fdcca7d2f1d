/// The rules of docs/push-wake-rules.md, plus the server's wake-decision bound.
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
    /// Sealed-push grants (docs/adr/0151, 0153): when iOS takes the VoIP token back, the phone
    /// tells every gateway it joined to stop; it asks at most 15 days, renews once less than 7
    /// remain, and never sends a new grant within 15 minutes of the last (``CallGrant``).
    case grant = "GRANT"
    /// The client protocol's contract (`--client-cmd`): answer every callback, in time, with
    /// valid ops. Not an iOS rule: iOS would kill a handler that hangs or crashes.
    case client = "CLIENT"

    public static func < (lhs: RuleID, rhs: RuleID) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

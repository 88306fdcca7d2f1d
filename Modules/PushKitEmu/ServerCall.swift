/// One server call: the wake decision plus what the emulator needs to judge it.
struct ServerCall: Sendable {
    var machine: WakeDecision
    var startedAt: Int64
    var push: Int32 = -1
    var answerAfterMs: Int64
    var declineAfterMs: Int64 = -1
    var answerScheduled = false
    /// The user declined one of its CallKit calls (R5: it must not ring again).
    var declinedByUser = false
    var answerTappedAt: Int64 = -1
    var okSent = false
    var leftFlagged = false
}

/// One server call: the wake decision plus what the emulator needs to judge it.
struct ServerCall: Sendable {
    var machine: WakeDecision
    var startedAt: Int64
    var push: Int32 = -1
    var answerAfterMs: Int64
    var declineAfterMs: Int64 = -1
    var answerScheduled = false
    /// The process generation in which the user declined one of its CallKit calls, or -1 (R5: it
    /// must not ring again — in that process; a killed app cannot remember without persistence).
    var declinedInGeneration: Int32 = -1
    var answerTappedAt: Int64 = -1
    var okSent = false
    var leftFlagged = false
    /// The ack window expired before the app could have acked: delivery, not the client (see
    /// ``Simulation/excused``).
    var excusedByDelivery = false
}

/// One CallKit call as the emulated CXProvider holds it.
struct CallKitCall: Sendable {
    /// The answer action's state.
    enum Answer: Sendable { case none, pending, fulfilled, failed }
    /// Whether this slot was reported (UUIDs may be allocated and never reported).
    var used = false
    /// Server call it stands for (ground truth), or -1.
    var call: Int32 = -1
    /// Push that created it, or -1.
    var push: Int32 = -1
    /// INVITE (server call) bound to it, or -1.
    var invite: Int32 = -1
    /// Ended.
    var ended = false
    /// Answer action.
    var answer: Answer = .none

    var active: Bool { used && !ended }
}

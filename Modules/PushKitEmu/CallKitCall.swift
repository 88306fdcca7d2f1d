/// One CallKit call as the emulated CXProvider holds it. Shared by the virtual-time
/// ``Simulation`` and live mode (module PushKitLive), so both keep the same provider state.
package struct CallKitCall: Sendable {
    /// The answer action's state.
    package enum Answer: Sendable { case none, pending, fulfilled, failed }
    /// Whether this slot was reported (UUIDs may be allocated and never reported).
    package var used = false
    /// Server call it stands for (ground truth), or -1.
    package var call: Int32 = -1
    /// Push that created it, or -1.
    package var push: Int32 = -1
    /// INVITE (server call) bound to it, or -1.
    package var invite: Int32 = -1
    /// Ended.
    package var ended = false
    /// Answer action.
    package var answer: Answer = .none

    package var active: Bool { used && !ended }

    package init(used: Bool = false, call: Int32 = -1, push: Int32 = -1, invite: Int32 = -1) {
        self.used = used
        self.call = call
        self.push = push
        self.invite = invite
    }
}

extension Array where Element == CallKitCall {
    /// Whether `uuid` names a reported call.
    package func isReported(_ uuid: Int32) -> Bool { uuid >= 0 && Int(uuid) < count && self[Int(uuid)].used }

    /// The provider's bookkeeping for the ops that touch only CallKit state — update, end,
    /// fulfil/fail the answer action, bind an INVITE — the same in virtual time and live mode.
    /// Returns the timeline event to record, or nil when the op does not apply (unknown UUID,
    /// call already ended, no pending answer action, or not one of these ops). The caller judges
    /// a fulfilled answer against the 200 OK (R5) and does any IO that follows.
    package mutating func applyProviderOp(_ op: ClientOp) -> TimelineEvent? {
        switch op {
        case .reportCallUpdated(let uuid):
            guard isReported(uuid) else { return nil }
            return .callkitUpdate(uuid: uuid)
        case .reportCallEnded(let uuid, let reason):
            guard isReported(uuid), self[Int(uuid)].active else { return nil }
            self[Int(uuid)].ended = true
            return .callkitEnd(uuid: uuid, reason: reason)
        case .fulfillAnswer(let uuid):
            guard isReported(uuid), self[Int(uuid)].answer == .pending else { return nil }
            self[Int(uuid)].answer = .fulfilled
            return .answerFulfilled(uuid: uuid)
        case .failAnswer(let uuid):
            guard isReported(uuid), self[Int(uuid)].answer == .pending else { return nil }
            self[Int(uuid)].answer = .failed
            return .answerFailed(uuid: uuid)
        case .claimInvite(let c, let uuid):
            guard isReported(uuid) else { return nil }
            self[Int(uuid)].invite = c
            return .inviteClaimed(call: c, uuid: uuid)
        default:
            return nil
        }
    }
}

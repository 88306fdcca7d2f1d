import PushKitEmu
import SIPDialog

/// Freeing a call's state on every path (answered, failed over, cancelled, timed out): once the
/// caller has its final answer, the call is kept 64·T1 more — RFC 3261 §17.2.1 Timer H (our own
/// non-2xx retransmitted until ACK) and RFC 6026 §7.1 Timer M (2xx retransmissions relayed) — and
/// then every entry is removed: the call, its branch indexes, push grant, retransmission and
/// decision timers, and ``WakeServer``'s machine. A decision that still owes the phone something
/// (a gone notice) postpones it, up to a bound every path's timers fit in.
extension WakeGatewayServer {
    /// How long a finished call's state lingers (64·T1).
    var lingerMs: Int64 { 64 * configuration.sipT1Ms }

    /// The call's upstream answer is final: free it after the linger.
    func settle(_ id: Int32) {
        guard reapTasks[id] == nil, calls[id] != nil else { return }
        let clock = clock
        let delay = lingerMs
        reapTasks[id] = Task { [weak self] in
            do { try await clock.sleep(for: .milliseconds(delay)) } catch { return }
            await self?.reap(id)
        }
    }

    func reap(_ id: Int32) async {
        reapTasks[id] = nil
        guard let call = calls[id] else { return }
        let d = configuration.decision
        let bound = call.arrivedMs + d.ackWindowMs + d.registerWaitMs + 2 * d.qualifyTimeoutMs + d.inviteTimeoutMs
            + 2 * lingerMs
        if await !reapable(call), nowMs < bound {
            settle(id)
            return
        }
        await free(id)
    }

    /// Whether nothing more can happen on `call`: final upstream, the decision at an end, no gone
    /// notice in flight.
    func reapable(_ call: HeldCall) async -> Bool {
        guard call.phase == .finished else { return false }
        if call.goneNoticeMs != nil && !call.goneNoticeDone { return false }
        switch await wake?.state(of: call.id) {
        case nil, .answered, .failedOver, .cancelled: return true
        default: return false
        }
    }

    func free(_ id: Int32) async {
        guard let call = calls.removeValue(forKey: id) else { return }
        byUpstreamBranch[call.upstreamBranch] = nil
        if let branch = call.downstreamBranch { byDownstreamBranch[branch] = nil }
        if let branch = call.qualifyBranch { byQualifyBranch[branch] = nil }
        if let pushID = call.pushID { grants.revoke(pushID) }
        for key in ["invite-\(id)", "gone-\(id)"] { stopRetransmitting(key) }
        for timer in [TransactionTimer.G, .H, .I, .L] { stopRetransmitting(Self.upstreamTimerKey(id, timer)) }
        reapTasks.removeValue(forKey: id)?.cancel()
        await wake?.forget(id)
        grants.expire(nowMs: nowMs)
    }
}

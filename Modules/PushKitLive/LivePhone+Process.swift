import CallSession
import Media
import PushKitEmu
import SIPCore
import SIPDialog

/// The app's process life cycle on the emulated iPhone: launched (fresh policy state, the token
/// handed over), killed, dead, and the SIP flow lost under it.
extension LivePhone {
    /// A fresh process: fresh policy state, old timers void; PushKit hands over the token. With a
    /// client process (``ProcessClientPolicy`` in per-launch mode) this is where iOS starts it:
    /// `app_process_started` with its pid, at the moment before the spawn.
    func startProcess(as state: AppState) {
        policy = pristine
        generation += 1
        app = state
        let spawnAt = now
        beginCallback()
        policy.launched(&ctx)
        if let pid = policy.processID {
            timeline.record(.live("app_process_started", [("pid", .int(pid))]), at: spawnAt)
        }
        applyOps()
        if !keychain.gateways.isEmpty {
            // The app reads its call keys from the keychain at every launch (docs/adr/0154).
            beginCallback()
            policy.didReceiveCallKeys(keychain.appKeys, &ctx)
            applyOps()
        }
        beginCallback()
        policy.didUpdatePushToken(&ctx)
        applyOps()
    }

    /// The app's OS process (if it has one) is killed now: no process while the app is killed.
    func endAppProcess(reason: String) {
        guard let pid = policy.processID else { return }
        policy.processEnded()
        timeline.record(.live("app_process_ended", [("pid", .int(pid)), ("reason", .text(reason))]))
    }

    /// The process died: policy state, timers, SIP calls and flow are gone; iOS ends its calls.
    func processDied() async {
        endAppProcess(reason: "killed")
        policy = pristine
        generation += 1
        for i in callkit.indices where callkit[i].active {
            callkit[i].ended = true
            if callkit[i].answer == .pending { callkit[i].answer = .failed }
            record(.callkitEnd(uuid: Int32(i), reason: .failed))
        }
        sipCalls.removeAll()
        await loseFlow()
    }

    /// The SIP flow dies under the app (no unregister).
    func loseFlow() async {
        registered = false
        guard let stack = sip else { return }
        sip = nil
        await stack.dropFlow()
    }
}

import CallSession
import ToolSupport

/// The status line of an interactive call: what is happening, for how long, and the call's
/// health — `● in call 0:12 PCMA · ↑612 ↓610 · loss 0.0 % · jitter 0.3 ms · 0-9 * # … q quit`.
/// Keeps the little it needs from the call's events (answered, held); the counters come from
/// the call itself on each redraw.
struct CallConsole {
    private(set) var answered = false
    private(set) var heldByUs = false
    private var heldByPeer = false
    private var answeredAt: ContinuousClock.Instant?
    private var codec = ""
    private var ended = false

    mutating func note(_ event: CallEvent, at now: ContinuousClock.Instant) {
        switch event {
        case .answered(let codec, _, _, _):
            answered = true
            answeredAt = now
            self.codec = codec
        case .held(let byPeer, _):
            if byPeer { heldByPeer = true } else { heldByUs = true }
        case .resumed(let byPeer):
            if byPeer { heldByPeer = false } else { heldByUs = false }
        case .ended:
            ended = true
            answered = false
        default:
            break
        }
    }

    /// Redraws the line (an actor hop to the call for its counters).
    func draw(on line: StatusLine, call: Call<ContinuousClock>?, now: ContinuousClock.Instant) async {
        guard line.isEnabled else { return }
        guard let call, !ended else {
            line.show("○ no call · q quit · ? keys")
            return
        }
        guard answered, let answeredAt else {
            line.show("◌ setting up the call · h hang up · q quit")
            return
        }
        let seconds = Int((now - answeredAt).components.seconds)
        let state = heldByUs ? "on hold" : (heldByPeer ? "held by the other side" : "in call")
        let clock = "\(seconds / 60):" + (seconds % 60 < 10 ? "0" : "") + String(seconds % 60)
        let s = await call.statistics()
        let loss = (s.lossPercent * 10).rounded() / 10
        let jitter = (s.jitterMilliseconds * 10).rounded() / 10
        line.show(
            "● \(state) \(clock) \(codec) · ↑\(s.packetsSent) ↓\(s.packetsReceived) · loss \(loss) % · "
                + "jitter \(jitter) ms · " + CallKey.hint)
    }
}

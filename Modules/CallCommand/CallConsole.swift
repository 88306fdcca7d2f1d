import CallSession
import ToolSupport

/// The status line of an interactive call: what is happening, for how long, and the call's
/// health (``CallStatusText``: `● in call 0:12 PCMA · ↑612 ↓610 · loss 0.0 % · … ? keys`).
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

    /// Redraws the line (an actor hop to the call for its counters), laid out for the
    /// terminal's width (``CallStatusText``).
    func draw(on line: StatusLine, call: Call<ContinuousClock>?, now: ContinuousClock.Instant) async {
        guard line.isEnabled else { return }
        line.show(await status(call: call, now: now).render(width: line.width))
    }

    /// What the line shows now.
    func status(call: Call<ContinuousClock>?, now: ContinuousClock.Instant) async -> CallStatusText {
        guard let call, !ended else { return CallStatusText(state: .noCall) }
        guard answered, let answeredAt else { return CallStatusText(state: .settingUp) }
        var status = CallStatusText(state: heldByUs ? .onHold : (heldByPeer ? .heldByPeer : .inCall))
        status.seconds = Int((now - answeredAt).components.seconds)
        status.codec = codec
        let s = await call.statistics()
        status.packetsSent = s.packetsSent
        status.packetsReceived = s.packetsReceived
        status.packetsExpected = s.packetsReceived + Int(s.packetsLost)
        status.lossPercent = s.lossPercent
        status.jitterMilliseconds = s.jitterMilliseconds
        return status
    }
}

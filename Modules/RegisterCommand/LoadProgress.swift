import AstraJSON
import LineRunner
import SIPDialog
import Synchronization
import ToolSupport

/// Shows a load run's progress (``LoadRunControl/Progress``, in ``LoadReport``'s words): one
/// line on stderr, rewritten in place about once a second, when stderr is a terminal (a person
/// watches); otherwise a `progress` event per report on stdout, for whatever reads the JSON Lines.
///
/// On a terminal the line results (``write(_:)``) go above the progress line: it is erased,
/// the results are written, and it is drawn again — never a result glued to its end. The last
/// report (``finish(_:)``) carries the run's final counts, the same as the summary's.
final class LoadProgress: Sendable {
    let output: EventWriter
    let terminal: Bool
    private let line: StatusLine
    /// The progress line on the terminal (nil: nothing shown yet), and whether a report was made.
    private let state = Mutex<(shown: String?, reported: Bool)>((nil, false))

    init(output: EventWriter, stderr: any OutputSink = FileDescriptorSink.standardError) {
        self.output = output
        self.terminal = stderr.isTerminal
        self.line = StatusLine(sink: stderr)
    }

    func report(_ p: LoadRunControl.Progress) {
        let text = LoadReport.progressLine(p)
        state.withLock { state in
            state.reported = true
            if terminal {
                state.shown = "astra-register: " + text
                line.show(state.shown!)
            } else {
                output.emit("progress", LoadReport.progressFields(p), text: text)
            }
        }
    }

    /// Writes rendered line results (one write for a batch), keeping the progress line below them.
    func write(_ text: String) {
        guard !text.isEmpty else { return }
        state.withLock { state in
            guard terminal, let shown = state.shown else {
                output.write(text)
                return
            }
            line.clear()
            output.write(text)
            line.show(shown)
        }
    }

    /// The last report, with the final counts (when any report was made: a run shorter than
    /// a report's interval has only its summary), then the terminal line is ended.
    func finish(_ p: LoadRunControl.Progress) {
        let reported = state.withLock { $0.reported }
        guard reported else { return }
        report(p)
        if terminal { FileDescriptorSink.standardError.write("\n") }
        state.withLock { $0.shown = nil }
    }
}

import AstraJSON
import SIPDialog
import ToolSupport

/// Shows a load run's progress (``LoadRunControl/Progress``): one line on stderr, rewritten in
/// place about once a second, when stderr is a terminal (a person watches); otherwise a
/// `progress` event per report on stdout, for whatever reads the JSON Lines.
struct LoadProgress: Sendable {
    let output: EventWriter
    let terminal: Bool
    private let stderr = FileDescriptorSink.standardError

    init(output: EventWriter, terminal: Bool = FileDescriptorSink.standardError.isTerminal) {
        self.output = output
        self.terminal = terminal
    }

    func report(_ p: LoadRunControl.Progress) {
        if terminal {
            stderr.write("\r\u{1B}[K" + Self.line(p))
        } else {
            output.emit("progress", Self.fields(p), text: String(Self.line(p).dropFirst("astra-register: ".count)))
        }
    }

    /// Ends the terminal line before the summary (nothing to do for JSON).
    func finish() {
        if terminal { stderr.write("\n") }
    }

    static func line(_ p: LoadRunControl.Progress) -> String {
        let total = p.total.map { "/\($0)" } ?? ""
        let p50 = p.p50Milliseconds.map { ", p50 \(rounded($0)) ms" } ?? ""
        return "astra-register: \(p.done)\(total) done, \(rounded(p.ratePerSecond))/s, \(p.failures) failed, "
            + "\(p.running) in flight\(p50)"
    }

    static func fields(_ p: LoadRunControl.Progress) -> JSONObject {
        [
            "done": .int(p.done), "total": p.total.map(JSONValue.int) ?? .null, "failed": .int(p.failures),
            "in_flight": .int(p.running), "rate_per_s": .double(rounded(p.ratePerSecond)),
            "p50_ms": p.p50Milliseconds.map { .double(rounded($0)) } ?? .null,
        ]
    }

    static func rounded(_ value: Double) -> Double { (value * 100).rounded() / 100 }
}

import AstraJSON
import LineRunner
import ToolSupport

/// Load mode in text mode, for a person at a terminal: a verdict line per line of the file and
/// the summary in words (the JSON `line_result` and `load_summary` are unchanged).
extension LoadRun {
    /// `✔ sip:1010@pbx registered in 14.9 ms`, `✘ sip:1011@pbx not registered: <reason>`.
    static func text(_ outcome: LineOutcome) -> String {
        if outcome.abandoned { return "· \(outcome.aor) \(outcome.reason ?? abandoned)" }
        guard outcome.exit == .success else { return "✘ \(outcome.aor) not registered: \(outcome.reason ?? "failed")" }
        return "✔ \(outcome.aor) registered" + (outcome.latency.map { " in \(milliseconds($0)) ms" } ?? "")
    }

    /// The summary in words (``LoadReport/summaryText(_:)``), from the `load_summary` fields.
    static func text(summary s: JSONObject) -> String { LoadReport.summaryText(s) }

    private static func milliseconds(_ d: Duration) -> String { String((Double(d.microseconds) / 100).rounded() / 10) }
}

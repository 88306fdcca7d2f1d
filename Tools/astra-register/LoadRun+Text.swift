import AstraJSON
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

    /// `2 lines: 1 registered, 1 failed (completed) in 16.5 ms, 60.8 registrations/s; latency
    /// p50 14.9 · p90 14.9 · p99 14.9 · max 14.9 ms` — from the `load_summary` fields.
    static func text(summary s: JSONObject) -> String {
        func int(_ key: String) -> Int { s[key]?.intValue ?? 0 }
        func number(_ value: JSONValue?) -> String? {
            guard let v = value?.doubleValue else { return nil }
            return String((v * 10).rounded() / 10)
        }
        var counts = ["\(int("registered")) registered", "\(int("failed")) failed"]
        if int("abandoned") > 0 { counts.append("\(int("abandoned")) abandoned") }
        if int("not_started") > 0 { counts.append("\(int("not_started")) not started") }
        var stopped = "completed"
        if case .string(let reason) = s["stopped"] { stopped = reason }
        var line = "\(int("lines")) lines: " + counts.joined(separator: ", ") + " (\(stopped))"
        if let wall = number(s["wall_ms"]) { line += " in \(wall) ms" }
        if let rate = number(s["rate_per_s"]) { line += ", \(rate) registrations/s" }
        if case .object(let latency) = s["latency_ms"], let p50 = number(latency["p50"]) {
            let rest = ["p90", "p99", "max"].compactMap { key in number(latency[key]).map { "\(key) \($0)" } }
            line += "; latency p50 \(p50)" + rest.map { " · " + $0 }.joined() + " ms"
        }
        return line
    }

    private static func milliseconds(_ d: Duration) -> String { String((Double(d.microseconds) / 100).rounded() / 10) }
}

import AstraJSON
import SIPCore
import SIPDialog
import LineRunner
import SIPTransport
import Synchronization
import ToolSupport

/// What a load run prints: each line's `line_result` (JSON or text) and the `load_summary`
/// (counts from the run control, rate, latency percentiles).
extension LoadRun {
    static let abandoned = "abandoned: the run stopped"

    /// The run control's settings from the options.
    func controlSettings(lines: Int) -> LoadRunControl.Settings {
        LoadRunControl.Settings(concurrency: concurrency, lines: lines, rate: options.rate,
                                runTimeout: options.runTimeout, duration: options.duration)
    }

    /// Prints the summary (with the stop reason and counts) and picks the exit code: a run
    /// timeout is 3; otherwise the finished lines decide (abandoned ones are not failures).
    func finish(_ outcomes: [LineOutcome], control: LoadRunControl, wall: Duration,
                extra: JSONObject = [:]) -> ExitCode {
        var fields = summary(outcomes, control: control, wall: wall)
        for (key, value) in extra.entries { fields[key] = value }
        context.output.emit("load_summary", fields, text: Self.text(summary: fields))
        if control.stopReason == .runTimeout {
            context.diagnostics.error("run timeout after \(options.runTimeout ?? .zero): summary of the lines so far")
            return .network
        }
        if control.stopReason == .signal { context.diagnostics.error("interrupted: summary of the lines so far") }
        let done = outcomes.filter { !$0.abandoned }
        if done.allSatisfy({ $0.exit == .success }) { return .success }
        return done.contains { $0.exit == .network } ? .network : .failure
    }

    /// The `line_result` event of `outcome`, rendered (written through ``LoadProgress/write(_:)``).
    func render(_ outcome: LineOutcome) -> String {
        context.output.render("line_result", fields(outcome), text: Self.text(outcome))
    }

    func fields(_ outcome: LineOutcome) -> JSONObject {
        var fields: JSONObject = [
            "aor": .string(outcome.aor), "registered": .bool(outcome.exit == .success && !outcome.abandoned),
        ]
        if outcome.abandoned { fields["abandoned"] = .bool(true) }
        fields["ms"] = outcome.latency.map { .double(Double($0.microseconds) / 1000) } ?? .null
        if let handshake = outcome.handshake { fields["handshake_ms"] = .double(Double(handshake.microseconds) / 1000) }
        if let reason = outcome.reason { fields["reason"] = .string(reason) }
        if let cause = outcome.cause { fields["cause"] = .string(cause) }
        return fields
    }

    func summary(_ outcomes: [LineOutcome], control: LoadRunControl, wall: Duration) -> JSONObject {
        let done = outcomes.filter { !$0.abandoned }
        let latencies = done.compactMap(\.latency).map { Double($0.microseconds) / 1000 }.sorted()
        func percentile(_ p: Double) -> JSONValue {
            guard !latencies.isEmpty else { return .null }
            let index = min(latencies.count - 1, Int((p / 100 * Double(latencies.count)).rounded(.up)) - 1)
            return .double(latencies[max(0, index)])
        }
        let seconds = Double(wall.microseconds) / 1_000_000
        // The counts are the run control's, the ones the progress line showed.
        let counts = control.counts
        var fields: JSONObject = ["lines": .int(control.settings.lines)]
        for (key, value) in LoadReport.counts(counts).entries { fields[key] = value }
        let rest: JSONObject = [
            "stopped": .string((control.stopReason ?? .completed).rawValue),
            "concurrency": .int(concurrency), "rate_limit": options.rate.map(JSONValue.double) ?? .null,
            "wall_ms": .double(seconds * 1000),
            "rate_per_s": .double(seconds > 0 ? Double(counts.registered) / seconds : 0),
            "latency_ms": .object([
                "p50": percentile(50), "p90": percentile(90), "p99": percentile(99),
                "max": latencies.last.map(JSONValue.double) ?? .null,
            ]),
        ]
        for (key, value) in rest.entries { fields[key] = value }
        return fields
    }
}

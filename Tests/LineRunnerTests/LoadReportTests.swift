import AstraJSON
import SIPDialog
import Testing
@testable import LineRunner

/// A load run's counts (``LoadCounts``) are one set: the progress line, the `progress` event,
/// the `load_summary` and the summary in words say the same planned, started, done,
/// registered, failed, abandoned and not-started figures — in virtual time, from the run
/// control that counts them.
@Suite struct LoadReportTests {
    /// `--duration 30 --rate 20/s` over a 200-line file, stopped by a signal with 4 in flight.
    static func signalled() -> LoadRunControl {
        var c = LoadRunControl(settings: .init(concurrency: 4, lines: 200, rate: 20, duration: .seconds(30)), now: .zero)
        // One start per 50 ms (the rate); one line ends per step, the last four stay in flight.
        for step in 0..<90 {
            let now = Duration.milliseconds(50 * step)
            while c.admit(now: now) {}
            if step < 86 { c.finished(ok: step % 10 != 0, latency: .milliseconds(3)) }
        }
        c.stop(.signal)
        while c.running > 0 { c.finished(ok: false, latency: nil, abandoned: true) }
        return c
    }

    @Test func theCountsAddUpAndPlanWhatTheDurationAndRateAllow() {
        let c = Self.signalled()
        let counts = c.counts
        #expect(counts.planned == 600, "20/s for 30 s, not the file's 200 lines")
        #expect(counts.isConsistent)
        #expect(counts.started == 90 && counts.registered == 77 && counts.failed == 9)
        #expect(counts.abandoned == 4 && counts.running == 0)
        #expect(counts.started == counts.done + counts.abandoned)
        #expect(counts.notStarted == 600 - counts.started && counts.notStarted! > 0)
        let json = LoadReport.counts(counts)
        #expect(json["not_started"]?.intValue == counts.notStarted, "a stopped --duration run says what it never started")
        #expect(json["planned"]?.intValue == 600 && json["started"]?.intValue == counts.started)
    }

    @Test func aLineThatCouldNotStartIsNeitherStartedNorAbandoned() {
        var c = LoadRunControl(settings: .init(concurrency: 2, lines: 1, duration: .seconds(5)), now: .zero)
        let first = c.admit(now: .zero), second = c.admit(now: .zero)
        #expect(first && second)
        c.unstart()  // one line, already in flight: the second start is taken back
        #expect(c.counts == LoadCounts(planned: nil, started: 1, running: 1))
        #expect(c.counts.notStarted == nil, "nothing planned without a rate")
    }

    @Test func theLastProgressAndTheSummarySayTheSame() {
        let c = Self.signalled()
        let progress = c.progress(now: .milliseconds(4_500))
        let line = LoadReport.progressLine(progress)
        let counts = c.counts
        #expect(line.hasPrefix("\(counts.done)/600 done: \(counts.registered) registered, \(counts.failed) failed, 4 abandoned; 0 in flight"),
                "\(line)")
        let event = LoadReport.progressFields(progress)
        for key in ["planned", "started", "done", "registered", "failed", "abandoned", "not_started"] {
            #expect(event[key] == LoadReport.counts(counts)[key], "\(key)")
        }
        var summary: JSONObject = ["lines": 200]
        for (key, value) in LoadReport.counts(counts).entries { summary[key] = value }
        summary["stopped"] = "signal"
        summary["wall_ms"] = .double(4_512.3)
        let text = LoadReport.summaryText(summary)
        #expect(text.hasPrefix(
            "600 planned (200 lines in the file), \(counts.started) started, \(counts.done) done: \(counts.registered) "
                + "registered, \(counts.failed) failed, 4 abandoned, \(counts.notStarted!) not started (signal) in 4.51 s"),
            "\(text)")
    }

    @Test func aCompleteRunReadsAsBefore() {
        let summary: JSONObject = [
            "lines": 2, "planned": 2, "started": 2, "done": 2, "registered": 1, "failed": 1, "abandoned": 0,
            "not_started": 0, "stopped": "completed", "wall_ms": 16.46, "rate_per_s": 60.75,
            "latency_ms": ["p50": 14.9, "p90": 14.9, "p99": 14.9, "max": 14.9],
        ]
        #expect(LoadReport.summaryText(summary)
            == "2 lines, 2 started, 2 done: 1 registered, 1 failed (completed) in 16.5 ms, 60.8 registrations/s; "
            + "latency p50 14.9 · p90 14.9 · p99 14.9 · max 14.9 ms")
    }

    @Test func aFleetSaysItsRampAndWhatItsHoldSaw() {
        let summary: JSONObject = [
            "lines": 2, "planned": 2, "started": 2, "done": 2, "registered": 2, "failed": 0, "abandoned": 0,
            "not_started": 0, "stopped": "completed", "wall_ms": 50.7, "rate_per_s": 39.4, "mode": "fleet",
            "hold_ms": 3_001.2, "held_at_end": 2, "most_held": 2, "drops": 1, "reconnects": 1, "refreshes": 4,
            "refreshes_late": 0, "refresh_failures": 0, "keep_alive_pings": 6, "keep_alive_pongs": 6, "unregistered": 2,
        ]
        let text = LoadReport.summaryText(summary)
        #expect(text.contains("(completed) ramp 50.7 ms"), "the 50.7 ms is the ramp, not the run: \(text)")
        #expect(!text.contains(" in 50.7 ms"))
        #expect(text.hasSuffix(
            "; held 3.0 s: 2 at the end (most 2), 1 drops, 1 reconnects, 4 refreshes (0 late, 0 failed), "
                + "6 keep-alive pings (6 answered), 2 unregistered"), "\(text)")
    }
}

import AstraJSON
import Glibc
import SIPDialog

/// The words and JSON of a load run (`astra-register --load`): the progress line, the
/// `progress` event and the `load_summary` counts, all from one ``LoadCounts``, so the line a
/// person watches, the summary and the JSON never disagree — planned, started, done,
/// registered, failed, abandoned, not started — and the summary in words, from the
/// `load_summary` fields (so `--merge` prints the same words for merged shards).
///
/// Pure: figures in, text and JSON out.
package enum LoadReport {
    /// `80/600 done: 80 registered, 0 failed; 4 in flight, 19.9/s, p50 3.1 ms` (the line the
    /// terminal shows, after the tool's name; also the `progress` event's text).
    package static func progressLine(_ p: LoadRunControl.Progress) -> String {
        let c = p.counts
        var counts = "\(c.registered) registered, \(c.failed) failed"
        if c.abandoned > 0 { counts += ", \(c.abandoned) abandoned" }
        let p50 = p.p50Milliseconds.map { ", p50 \(rounded($0)) ms" } ?? ""
        return "\(c.done)" + (c.planned.map { "/\($0)" } ?? "") + " done: " + counts
            + "; \(c.running) in flight, \(rounded(p.ratePerSecond))/s" + p50
    }

    /// The `progress` event: the counts, the rate and the median latency.
    package static func progressFields(_ p: LoadRunControl.Progress) -> JSONObject {
        var fields = counts(p.counts)
        fields["in_flight"] = .int(p.counts.running)
        fields["total"] = p.counts.planned.map(JSONValue.int) ?? .null  // the planned lines' older name
        fields["rate_per_s"] = .double(rounded(p.ratePerSecond))
        fields["p50_ms"] = p.p50Milliseconds.map { .double(rounded($0)) } ?? .null
        return fields
    }

    /// The counts as `load_summary` and `progress` carry them (`planned` and `not_started`
    /// are null when the run planned no number: `--duration` without `--rate`).
    package static func counts(_ c: LoadCounts) -> JSONObject {
        [
            "planned": c.planned.map(JSONValue.int) ?? .null, "started": .int(c.started), "done": .int(c.done),
            "registered": .int(c.registered), "failed": .int(c.failed), "abandoned": .int(c.abandoned),
            "not_started": c.notStarted.map(JSONValue.int) ?? .null,
        ]
    }

    /// The summary in words, from the `load_summary` fields:
    /// `600 planned (200 lines in the file), 94 started, 90 done: 90 registered, 0 failed,
    /// 4 abandoned, 506 not started (signal) in 4.52 s, 19.9 registrations/s; latency p50 3.1 ·
    /// p90 4.2 · p99 6.0 · max 6.3 ms`. A fleet adds its hold (`--fleet`: the registrations'
    /// time is the ramp, then the hold's figures); a storm its connections.
    package static func summaryText(_ s: JSONObject) -> String {
        func int(_ key: String) -> Int? { s[key]?.intValue }
        func number(_ key: String, in object: JSONObject? = nil) -> Double? {
            guard let v = (object ?? s)[key]?.doubleValue, v.isFinite else { return nil }
            return v
        }
        let lines = int("lines") ?? 0
        let registered = int("registered") ?? 0, failed = int("failed") ?? 0
        var cycled = false
        if case .null? = s["planned"] { cycled = true }  // --duration without --rate: nothing planned
        var head = "\(lines) lines"
        if let planned = int("planned"), planned != lines {
            head = "\(planned) planned (\(lines) lines in the file)"
        } else if cycled {
            head += " cycled"
        }
        if let started = int("started") { head += ", \(started) started" }
        head += ", \(int("done") ?? registered + failed) done: \(registered) registered, \(failed) failed"
        if let abandoned = int("abandoned"), abandoned > 0 { head += ", \(abandoned) abandoned" }
        if let notStarted = int("not_started"), notStarted > 0 { head += ", \(notStarted) not started" }
        var stopped = "completed"
        if case .string(let reason) = s["stopped"] { stopped = reason }
        var line = head + " (\(stopped))"
        let mode = s["mode"]?.stringValue
        if let wall = number("wall_ms") { line += (mode == "fleet" ? " ramp " : " in ") + time(wall) }
        if let rate = number("rate_per_s") { line += ", \(tenth(rate)) registrations/s" }
        if case .object(let latency) = s["latency_ms"], let p50 = number("p50", in: latency) {
            let rest = ["p90", "p99", "max"].compactMap { key in number(key, in: latency).map { "\(key) \(tenth($0))" } }
            line += "; latency p50 \(tenth(p50))" + rest.map { " · " + $0 }.joined() + " ms"
        }
        switch mode {
        case "fleet": line += "; " + fleet(s)
        case "storm":
            var storm = "\(int("connections") ?? 0) connections"
            if case .object(let handshake) = s["handshake_ms"], let p50 = number("p50", in: handshake) {
                storm += " (handshake p50 \(tenth(p50)) ms)"
            }
            line += "; " + storm + ", \(int("unregistered") ?? 0) unregistered"
        default: break
        }
        return line
    }

    /// `held 3.0 s: 2 at the end (most 2), 0 drops, 0 reconnects, 4 refreshes (0 late,
    /// 0 failed), 2 keep-alive pings (2 answered), 2 unregistered`.
    static func fleet(_ s: JSONObject) -> String {
        func int(_ key: String) -> Int { s[key]?.intValue ?? 0 }
        var text = "held " + (s["hold_ms"]?.doubleValue.map(time) ?? "–")
        text += ": \(int("held_at_end")) at the end (most \(int("most_held"))), \(int("drops")) drops, "
            + "\(int("reconnects")) reconnects, \(int("refreshes")) refreshes (\(int("refreshes_late")) late, "
            + "\(int("refresh_failures")) failed), \(int("keep_alive_pings")) keep-alive pings "
            + "(\(int("keep_alive_pongs")) answered), \(int("unregistered")) unregistered"
        return text
    }

    /// Nearest-rank percentiles of `values` (`{"p50": …, "p90": …, "max": …}`, rounded to the
    /// microsecond when they are milliseconds); null when there are none. One definition for
    /// every load summary (registrations, connections, calls).
    package static func percentiles(_ values: [Double], at ranks: [Int] = [50, 90, 99], max withMax: Bool = true)
        -> JSONValue
    {
        guard !values.isEmpty else { return .null }
        let sorted = values.sorted()
        func rounded(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }
        var object: JSONObject = [:]
        for rank in ranks {
            let index = min(sorted.count - 1, Swift.max(0, Int((Double(rank) / 100 * Double(sorted.count)).rounded(.up)) - 1))
            object["p\(rank)"] = .double(rounded(sorted[index]))
        }
        if withMax { object["max"] = .double(rounded(sorted.last!)) }
        return .object(object)
    }

    /// User + system CPU of this process so far, seconds (getrusage): the CPU-per-unit figures
    /// of load summaries.
    package static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }

    /// `16.5 ms` below a second, `4.52 s` from one.
    static func time(_ milliseconds: Double) -> String {
        milliseconds < 1000 ? "\(tenth(milliseconds)) ms" : "\((milliseconds / 10).rounded() / 100) s"
    }

    static func tenth(_ value: Double) -> String { String((value * 10).rounded() / 10) }

    static func rounded(_ value: Double) -> Double { (value * 100).rounded() / 100 }
}

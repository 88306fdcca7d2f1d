import AstraJSON
import CallSession
import LineRunner
import SIPDialog

/// The figures of an `astra-call load` run (docs/man/astra-call.md): each call's `call_result`
/// and the `load_summary` built from them — attempted, answered, failed by cause, set-up and
/// MOS percentiles, CPU per call. The starts, stops and counts are ``LoadRunControl``'s (the
/// run control astra-register's load mode uses), so the progress line and the summary agree.
///
/// Pure: results in, JSON and text out.
package struct CallLoadTally {
    /// How one call ended, as `call_result` reports it.
    package struct Result {
        package var index: Int
        package var from: String
        package var target: String
        package var callID: String
        package var reason: CallEndReason
        package var stats: CallStatistics
        /// `--expect-tone`: seconds of audio played out and seconds of it with the tone.
        package var tone: (frequency: Double, heard: Double, tone: Double)?
        package var toneShare: Double
        /// Stopped (signal, run timeout) before it was answered.
        package var abandoned: Bool

        package init(
            index: Int, from: String, target: String, callID: String, reason: CallEndReason, stats: CallStatistics,
            tone: (frequency: Double, heard: Double, tone: Double)? = nil, toneShare: Double = 0.5,
            abandoned: Bool = false
        ) {
            (self.index, self.from, self.target, self.callID) = (index, from, target, callID)
            (self.reason, self.stats, self.tone, self.toneShare, self.abandoned) = (reason, stats, tone, toneShare, abandoned)
        }

        package var answered: Bool { stats.setupMilliseconds != nil }
        package var twoWay: Bool { stats.packetsSent > 0 && stats.packetsReceived > 0 }
        package var toneOK: Bool? { tone.map { $0.heard > 0 && $0.tone >= $0.heard * toneShare } }

        /// nil: the call did what a load call must — answered, ended by a hang-up, media both
        /// ways (and the tone heard, with `--expect-tone`). Else the cause it is counted under:
        /// the final status (`486`, `503`), the end reason, `no_media` or `no_tone`.
        package var failureCause: String? {
            guard answered else { return reason.status.map(String.init) ?? reason.name }
            guard reason.isNormalClearing else { return reason.name }
            guard twoWay else { return "no_media" }
            if toneOK == false { return "no_tone" }
            return nil
        }

        package var json: JSONObject {
            var fields: JSONObject = [
                "index": .int(index), "from": .string(from), "target": .string(target), "call_id": .string(callID),
                "answered": .bool(answered), "ok": .bool(failureCause == nil), "reason": .string(reason.name),
            ]
            if let status = reason.status { fields["status"] = .int(status) }
            if let cause = failureCause { fields["cause"] = .string(cause) }
            if abandoned { fields["abandoned"] = .bool(true) }
            fields["setup_ms"] = stats.setupMilliseconds.map { .double(CallFigures.rounded($0)) } ?? .null
            if let tone, let ok = toneOK {
                fields["tone"] = .object([
                    "hz": .double(tone.frequency), "heard_s": .double(CallFigures.rounded(tone.heard)),
                    "tone_s": .double(CallFigures.rounded(tone.tone)), "ok": .bool(ok),
                ])
            }
            fields["stats"] = .object(CallFigures.json(stats))
            return fields
        }
    }

    package private(set) var answered = 0
    package private(set) var twoWay = 0
    package private(set) var failures: [String: Int] = [:]
    package private(set) var setup: [Double] = []
    package private(set) var mos: [Double] = []
    package private(set) var packetsSent = 0
    package private(set) var packetsReceived = 0

    package init() {}

    /// Counts one call; returns whether it is a success for ``LoadRunControl``.
    package mutating func record(_ r: Result) -> Bool {
        if r.answered { answered += 1 }
        if r.twoWay { twoWay += 1 }
        packetsSent += r.stats.packetsSent
        packetsReceived += r.stats.packetsReceived
        if let ms = r.stats.setupMilliseconds { setup.append(ms) }
        if let m = r.stats.mos { mos.append(m) }
        guard !r.abandoned else { return false }
        guard let cause = r.failureCause else { return true }
        failures[cause, default: 0] += 1
        return false
    }

    /// A call that could not even be made (no flow binding, no media port): failed, `not_placed`.
    package mutating func noteUnplaced() { failures["not_placed", default: 0] += 1 }

    /// The `load_summary` fields: the run control's counts under call names, then the figures.
    package func summary(
        _ counts: LoadCounts, stopped: LoadRunControl.StopReason, settings: JSONObject, wallMilliseconds: Double,
        cpuSeconds: Double
    ) -> JSONObject {
        var fields: JSONObject = [
            "planned": counts.planned.map(JSONValue.int) ?? .null, "attempted": .int(counts.started),
            "done": .int(counts.done), "ok": .int(counts.registered), "failed": .int(counts.failed),
            "abandoned": .int(counts.abandoned), "not_started": counts.notStarted.map(JSONValue.int) ?? .null,
            "answered": .int(answered), "two_way_media": .int(twoWay),
        ]
        var causes: JSONObject = [:]
        for (cause, n) in failures.sorted(by: { $0.key < $1.key }) { causes[cause] = .int(n) }
        fields["failed_by_cause"] = .object(causes)
        fields["setup_ms"] = LoadReport.percentiles(setup, at: [50, 95, 99])
        fields["mos"] = LoadReport.percentiles(mos, at: [5, 50], max: false)
        fields["packets_sent"] = .int(packetsSent)
        fields["packets_received"] = .int(packetsReceived)
        fields["stopped"] = .string(stopped.rawValue)
        for (key, value) in settings.entries { fields[key] = value }
        fields["wall_ms"] = .double(CallFigures.rounded(wallMilliseconds))
        fields["cpu_s"] = .double((cpuSeconds * 1000).rounded() / 1000)
        let perCall = counts.started > 0 ? cpuSeconds / Double(counts.started) : 0
        fields["cpu_s_per_call"] = .double((perCall * 1_000_000).rounded() / 1_000_000)
        return fields
    }

    /// `12/20 done: 11 ok, 1 failed; 8 in flight` (the terminal's progress line).
    package static func progressLine(_ p: LoadRunControl.Progress) -> String {
        let c = p.counts
        var text = "\(c.done)" + (c.planned.map { "/\($0)" } ?? "") + " calls done: \(c.registered) ok, \(c.failed) failed"
        if c.abandoned > 0 { text += ", \(c.abandoned) abandoned" }
        return text + "; \(c.running) in flight"
    }

    /// The summary in words (text output): `20 attempted, 20 answered, 20 ok, 0 failed (completed);
    /// set-up p50 12.1 ms, MOS p5 4.4; 0.0021 CPU s per call`.
    package static func summaryText(_ s: JSONObject) -> String {
        func int(_ key: String) -> Int { s[key]?.intValue ?? 0 }
        var text = "\(int("attempted")) attempted, \(int("answered")) answered, \(int("ok")) ok, \(int("failed")) failed"
        if int("abandoned") > 0 { text += ", \(int("abandoned")) abandoned" }
        if case .object(let causes)? = s["failed_by_cause"], !causes.entries.isEmpty {
            text += " (" + causes.entries.map { "\($0.key): \($0.value.intValue ?? 0)" }.joined(separator: ", ") + ")"
        }
        text += " [\(s["stopped"]?.stringValue ?? "completed")]"
        if case .object(let setup)? = s["setup_ms"], let p50 = setup["p50"]?.doubleValue {
            text += "; set-up p50 \(p50) ms"
        }
        if case .object(let mos)? = s["mos"], let p5 = mos["p5"]?.doubleValue { text += ", MOS p5 \(p5)" }
        return text + "; \(s["cpu_s_per_call"]?.doubleValue ?? 0) CPU s per call"
    }
}

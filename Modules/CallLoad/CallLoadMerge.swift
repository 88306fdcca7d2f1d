import AstraJSON
import LineRunner
import ToolSupport

/// `astra-call load --merge FILE`: one `load_summary` from the JSON Lines of several call-load
/// runs — the shards of one load (`--shard I/N`) run side by side on several machines or
/// processes. Counts add up (the shards ran at the same time), failures by cause add up per
/// cause, `wall_ms` is the longest shard's, CPU per call is the summed CPU over the summed
/// attempts, and the set-up and MOS percentiles are recomputed from every `call_result`
/// (percentiles of percentiles would be wrong). Other events pass by unread.
///
/// Pure: events in, one summary out (``add(_:)`` per JSON value, ``summary()`` at the end).
package struct CallLoadMerge {
    /// Summary counters that add up across shards.
    static let summed = [
        "planned", "attempted", "done", "ok", "failed", "abandoned", "not_started", "answered", "two_way_media",
        "packets_sent", "packets_received",
    ]

    package private(set) var summaries: [JSONValue] = []
    private var setup: [Double] = []
    private var mos: [Double] = []

    package init() {}

    /// Reads one event: a `load_summary` is kept, an answered `call_result` gives its set-up
    /// time and MOS; anything else is ignored.
    package mutating func add(_ value: JSONValue) {
        guard case .string(let event) = value["event"] else { return }
        switch event {
        case "load_summary":
            summaries.append(value)
        case "call_result":
            if let ms = Self.number(value["setup_ms"]) { setup.append(ms) }
            if let score = Self.number(value["stats"]?["mos"]) { mos.append(score) }
        default:
            return
        }
    }

    /// The merged `load_summary` fields; nil when no `load_summary` was read.
    package func summary() -> JSONObject? {
        guard !summaries.isEmpty else { return nil }
        var fields: JSONObject = ["shards": .int(summaries.count)]
        for key in Self.summed {
            let values = summaries.compactMap { Self.number($0[key]) }
            if !values.isEmpty { fields[key] = .int(Int(values.reduce(0, +))) }
        }
        var causes: [String: Int] = [:]
        for summary in summaries {
            guard case .object(let members) = summary["failed_by_cause"] else { continue }
            for (cause, count) in members { causes[cause, default: 0] += Int(Self.number(count) ?? 0) }
        }
        fields["failed_by_cause"] = .object(JSONObject(causes.keys.sorted().map { (key: $0, value: .int(causes[$0]!)) }))
        fields["setup_ms"] = LoadReport.percentiles(setup, at: [50, 95, 99])
        fields["mos"] = LoadReport.percentiles(mos, at: [5, 50], max: false)
        let stops = Set(summaries.compactMap { $0["stopped"]?.stringValue })
        if !stops.isEmpty { fields["stopped"] = .string(stops.count == 1 ? stops.first! : "mixed") }
        fields["wall_ms"] = summaries.compactMap { Self.number($0["wall_ms"]) }.max().map(JSONValue.double) ?? .null
        let cpu = summaries.compactMap { Self.number($0["cpu_s"]) }.reduce(0, +)
        fields["cpu_s"] = .double((cpu * 1000).rounded() / 1000)
        let attempted = Self.number(fields["attempted"]) ?? 0
        fields["cpu_s_per_call"] = .double(attempted > 0 ? (cpu / attempted * 1_000_000).rounded() / 1_000_000 : 0)
        return fields
    }

    /// A finite number (`1e999` in a shard's line is no count).
    static func number(_ value: JSONValue?) -> Double? { value?.doubleValue.flatMap { $0.isFinite ? $0 : nil } }

    /// Reads `path` ('-': standard input) line by line; a line that is not JSON is a usage error
    /// naming the file and line.
    package static func read(_ path: String) throws(ToolError) -> CallLoadMerge {
        var merge = CallLoadMerge()
        try InputReader.forEachLine(path == "-" ? nil : path, maxLine: .traceLine, maxLines: 10_000_000) {
            row, number throws(ToolError) in
            guard row.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else { return }
            do { merge.add(try JSONValue.parse(row)) } catch {
                throw ToolError(.usage, "\(InputReader.name(path)):\(number): not JSON: \(error)")
            }
        }
        return merge
    }
}

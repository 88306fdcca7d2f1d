import AstraJSON
import SIPCore
import ToolSupport

/// `--merge FILE`: one summary from the JSON Lines of several load runs — the shards of one
/// load (`--shard I/N`) run side by side. Counts and rates add up (the shards ran at the same
/// time), `wall_ms` is the longest shard's, and the latency percentiles are recomputed from every
/// `line_result` (percentiles of percentiles would be wrong). Other events pass by unread.
struct LoadMerge {
    let path: String
    let context: ToolContext

    /// Summary counters that add up across shards.
    static let summed = [
        "lines", "planned", "started", "done", "registered", "failed", "abandoned", "not_started", "connections", "unregistered", "held_at_end",
        "most_held", "drops", "reconnects", "refreshes", "refreshes_late", "refresh_failures", "keep_alive_pings",
        "keep_alive_pongs", "rss_kib", "peak_rss_kib",
    ]
    static let summedRates = ["rate_per_s", "connections_per_s", "cpu_ms"]

    func run() -> ExitCode {
        var summaries: [JSONValue] = []
        var register: [Double] = []
        var handshake: [Double] = []
        do {
            try InputReader.forEachLine(path == "-" ? nil : path, maxLine: .traceLine, maxLines: 10_000_000) {
                row, number throws(ToolError) in
                guard row.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else { return }
                let value: JSONValue
                do { value = try JSONValue.parse(row) } catch {
                    throw ToolError(.usage, "\(InputReader.name(path)):\(number): not JSON: \(error)")
                }
                guard case .string(let event) = value["event"] else { return }
                switch event {
                case "load_summary":
                    summaries.append(value)
                case "line_result":
                    guard case .bool(true) = value["registered"] else { return }
                    if let ms = Self.number(value["ms"]) { register.append(ms) }
                    if let ms = Self.number(value["handshake_ms"]) { handshake.append(ms) }
                default:
                    return
                }
            }
        } catch {
            context.diagnostics.error(error.message)
            return error.exitCode
        }
        guard !summaries.isEmpty else {
            context.diagnostics.error("\(InputReader.name(path)): no load_summary event to merge")
            return .usage
        }
        var fields: JSONObject = ["shards": .int(summaries.count)]
        for key in Self.summed {
            let values = summaries.compactMap { Self.number($0[key]) }
            if !values.isEmpty { fields[key] = .int(Int(values.reduce(0, +))) }
        }
        for key in Self.summedRates {
            let values = summaries.compactMap { Self.number($0[key]) }
            if !values.isEmpty { fields[key] = .double(StreamLoadStats.rounded(values.reduce(0, +))) }
        }
        let walls = summaries.compactMap { Self.number($0["wall_ms"]) }
        fields["wall_ms"] = walls.max().map(JSONValue.double) ?? .null
        if let registered = Self.number(fields["registered"]), registered > 0, let cpu = Self.number(fields["cpu_ms"]) {
            fields["cpu_ms_per_registration"] = .double(StreamLoadStats.rounded(cpu / registered))
        }
        var causes: [String: Int] = [:]
        for summary in summaries {
            guard case .object(let members) = summary["failures"] else { continue }
            for (cause, count) in members { causes[cause, default: 0] += Int(Self.number(count) ?? 0) }
        }
        fields["failures"] = .object(JSONObject(causes.keys.sorted().map { (key: $0, value: .int(causes[$0]!)) }))
        let modes = Set(summaries.compactMap { if case .string(let m) = $0["mode"] { m } else { nil } })
        if modes.count == 1 { fields["mode"] = .string(modes.first!) }
        fields["latency_ms"] = StreamLoadStats.percentiles(register)
        if !handshake.isEmpty { fields["handshake_ms"] = StreamLoadStats.percentiles(handshake) }
        context.output.emit("load_summary", fields, text: LoadRun.text(summary: fields))
        let failed = Self.number(fields["failed"]) ?? 0
        return failed > 0 ? .failure : .success
    }

    /// A finite number, parsed or merged (`1e999` in a shard's line is no count).
    static func number(_ value: JSONValue?) -> Double? { value?.doubleValue.flatMap { $0.isFinite ? $0 : nil } }
}

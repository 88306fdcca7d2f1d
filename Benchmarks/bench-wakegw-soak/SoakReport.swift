import AstraJSON
import Glibc
import SIPCore

/// The soak's latency figures, from astra-wakegw's JSON Lines: push-to-ring = `ringing`
/// `since_invite_ms` of calls released after a push (`released.direct == false`), failover =
/// `failover` `since_invite_ms` (no ack). Each sample keeps its gateway time `t` for the
/// first-minute / last-minute split.
struct SoakReport {
    var pushToRing: [(t: Int64, ms: Int64)] = []
    var failover: [(t: Int64, ms: Int64)] = []
    var stats: [String: Int64] = [:]
    /// Every `stats` event (every 10 s): the gateway's own RSS and table sizes over the run.
    var series: [[String: Int64]] = []

    init(log: String) {
        var pushed: Set<Int64> = []
        for line in log.split(separator: "\n") {
            guard let json = try? JSONValue.parse(String(line)), case .string(let event)? = json["event"] else { continue }
            func int(_ key: String) -> Int64? { json[key]?.int64Value }
            let t = int("t") ?? 0
            switch event {
            case "released":
                if case .bool(false)? = json["direct"], let call = int("call") { pushed.insert(call) }
            case "ringing":
                if let call = int("call"), pushed.contains(call), let ms = int("since_invite_ms") { pushToRing.append((t, ms)) }
            case "failover":
                if case .string("no_ack")? = json["reason"], let ms = int("since_invite_ms") { failover.append((t, ms)) }
            case "stats":
                if case .object(let members) = json {
                    for (key, value) in members { if let number = value.int64Value { stats[key] = number } }
                    series.append(stats)
                }
            default: break
            }
        }
    }

    func lastStat(_ key: String) -> Int64 { stats[key] ?? -1 }

    static func percentile(_ values: [Int64], _ p: Double) -> Int64 {
        guard !values.isEmpty else { return -1 }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
    }

    /// `{n, p50, p99, first_minute:{n,p50,p99}, last_minute:{…}, p99_change_pct}`.
    func summary(_ samples: [(t: Int64, ms: Int64)]) -> String {
        guard let start = samples.map(\.t).min(), let end = samples.map(\.t).max() else { return "null" }
        func part(_ values: [Int64]) -> String {
            "{\"n\":\(values.count),\"p50\":\(Self.percentile(values, 0.5)),\"p99\":\(Self.percentile(values, 0.99))}"
        }
        let first = samples.filter { $0.t < start + 60_000 }.map(\.ms)
        let last = samples.filter { $0.t > end - 60_000 }.map(\.ms)
        let p99First = Self.percentile(first, 0.99)
        let p99Last = Self.percentile(last, 0.99)
        let change = p99First > 0 ? Int((Double(p99Last - p99First) / Double(p99First) * 100).rounded()) : 0
        return "{\"all\":\(part(samples.map(\.ms))),\"first_minute\":\(part(first)),\"last_minute\":\(part(last)),"
            + "\"p99_change_pct\":\(change)}"
    }
}

/// A small text file (/proc) read whole.
enum ChildText {
    static func read(_ path: String) -> String {
        guard let file = fopen(path, "r") else { return "" }
        defer { fclose(file) }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while true {
            let n = fread(&buffer, 1, buffer.count, file)
            if n <= 0 { break }
            out += buffer[0..<n]
        }
        return String(decoding: out, as: UTF8.self)
    }
}

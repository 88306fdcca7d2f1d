import AstraJSON
import LineRunner
import ToolSupport

/// The figures of a connection-oriented load run (storm or fleet), gathered on the loop's
/// thread and turned into the `load_summary` fields. Pure: samples in, JSON out.
struct StreamLoadStats {
    /// Milliseconds from the start of the connect to the connection being ready for SIP (TCP,
    /// TLS handshake, WebSocket upgrade), and the parts.
    var handshake: [Double] = []
    var connect: [Double] = []
    var tls: [Double] = []
    var upgrade: [Double] = []
    /// First REGISTER to the 200 (the digest round included).
    var register: [Double] = []
    var connections = 0
    var registered = 0
    var unregistered = 0
    var failures: [LoadFailureCause: Int] = [:]
    /// Fleet: connections lost while a line was up, new connections that re-registered.
    var drops = 0
    var dropCauses: [LoadFailureCause: Int] = [:]
    var reconnects = 0
    var refreshes: [Double] = []
    var refreshLateness: [Double] = []
    var refreshesLate = 0
    var refreshFailures = 0
    var pings = 0
    var pongs = 0
    /// Lines registered when the hold ended, and the process's memory then.
    var heldAtEnd = 0
    var mostHeld = 0
    var rssBytes: Int?
    var peakRSSBytes: Int?

    mutating func failed(_ cause: LoadFailureCause) { failures[cause, default: 0] += 1 }

    mutating func dropped(_ cause: LoadFailureCause) {
        drops += 1
        dropCauses[cause, default: 0] += 1
    }

    static func percentiles(_ values: [Double]) -> JSONValue { LoadReport.percentiles(values) }

    static func rounded(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }

    static func counts(_ table: [LoadFailureCause: Int]) -> JSONValue {
        var object: JSONObject = [:]
        for cause in LoadFailureCause.allCases { if let n = table[cause], n > 0 { object[cause.rawValue] = .int(n) } }
        return .object(object)
    }

    /// The storm/fleet part of the summary (the common part comes from ``LoadRun``).
    func fields(fleet: Bool, wallSeconds: Double, lines: Int) -> JSONObject {
        var fields: JSONObject = [
            "connections": .int(connections),
            "connections_per_s": .double(wallSeconds > 0 ? Self.rounded(Double(connections) / wallSeconds) : 0),
            "failures": Self.counts(failures),
            "handshake_ms": Self.percentiles(handshake), "connect_ms": Self.percentiles(connect),
            "register_ms": Self.percentiles(register),
        ]
        if !tls.isEmpty { fields["tls_ms"] = Self.percentiles(tls) }
        if !upgrade.isEmpty { fields["websocket_ms"] = Self.percentiles(upgrade) }
        fields["unregistered"] = .int(unregistered)
        if fleet {
            fields["held_at_end"] = .int(heldAtEnd)
            fields["most_held"] = .int(mostHeld)
            fields["drops"] = .int(drops)
            fields["drop_causes"] = Self.counts(dropCauses)
            fields["reconnects"] = .int(reconnects)
            fields["refreshes"] = .int(refreshes.count)
            fields["refreshes_late"] = .int(refreshesLate)
            fields["refresh_failures"] = .int(refreshFailures)
            fields["refresh_ms"] = Self.percentiles(refreshes)
            fields["refresh_lateness_ms"] = Self.percentiles(refreshLateness)
            fields["keep_alive_pings"] = .int(pings)
            fields["keep_alive_pongs"] = .int(pongs)
        }
        if let rssBytes {
            fields["rss_kib"] = .int(rssBytes / 1024)
            if heldAtEnd > 0 || lines > 0 {
                fields["rss_kib_per_line"] = .double(Self.rounded(Double(rssBytes) / 1024 / Double(max(1, fleet ? heldAtEnd : lines))))
            }
        }
        if let peakRSSBytes { fields["peak_rss_kib"] = .int(peakRSSBytes / 1024) }
        return fields
    }

    /// `VmRSS` and `VmHWM` of this process from /proc/self/status (bytes).
    static func memory() -> (rss: Int?, peak: Int?) {
        guard let text = try? InputReader.readText("/proc/self/status", limit: .init(64 * 1024, "status"))
        else { return (nil, nil) }
        func value(_ key: String) -> Int? {
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(key + ":") }) else { return nil }
            let digits = line.split(separator: " ").compactMap { Int($0) }.first
            return digits.map { $0 * 1024 }
        }
        return (value("VmRSS"), value("VmHWM"))
    }
}

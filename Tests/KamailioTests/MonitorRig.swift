import AstraJSON
import AstraTestSupport
import Foundation

/// What the monitor's Kamailio test reads: `/metrics` scraped with curl (an independent HTTP
/// client), one sample of an exposition, a real Prometheus started on loopback and its HTTP API.
enum MonitorRig {
    /// GET `url` with curl; the body, or nil when curl failed. `accept` sets the header.
    static func get(_ url: String, accept: String? = nil) async -> String? {
        let headers = accept.map { ["-H", "Accept: \($0)"] } ?? []
        guard let result = try? await ChildProcess.run(command: "curl", ["-sS", "--max-time", "5"] + headers + [url]),
            result.status == 0
        else { return nil }
        return result.text
    }

    /// The value of the sample `name{…}` whose labels include every pair of `labels`.
    static func sample(_ exposition: String, _ name: String, _ labels: [String: String]) -> Double? {
        for row in exposition.split(separator: "\n") where row.hasPrefix(name + "{") {
            guard let space = row.lastIndex(of: " ") else { continue }
            let series = row[..<space]
            guard labels.allSatisfy({ series.contains("\($0.key)=\"\($0.value)\"") }) else { continue }
            return Double(row[row.index(after: space)...])
        }
        return nil
    }

    /// A Prometheus scraping `target` every second with the rules of docs/monitoring.md, its
    /// storage and configuration in a folder of its own, its API on 127.0.0.1.
    final class Prometheus: Sendable {
        let port: UInt16
        let folder: URL
        let process: ChildProcess.Running

        init(target: String, rules: String) throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("astra-prometheus-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("data"), withIntermediateDirectories: true)
            let config = """
                global:
                  scrape_interval: 1s
                  scrape_timeout: 1s
                  evaluation_interval: 1s
                rule_files:
                  - sip-lines.rules.yml
                scrape_configs:
                  - job_name: sip-lines
                    static_configs:
                      - targets: ["\(target)"]

                """
            try config.write(to: folder.appendingPathComponent("prometheus.yml"), atomically: true, encoding: .utf8)
            try rules.write(to: folder.appendingPathComponent("sip-lines.rules.yml"), atomically: true, encoding: .utf8)
            port = TestPorts.random()
            process = try ChildProcess.start(
                command: "prometheus",
                [
                    "--config.file", folder.appendingPathComponent("prometheus.yml").path,
                    "--storage.tsdb.path", folder.appendingPathComponent("data").path,
                    "--web.listen-address", "127.0.0.1:\(port)",
                ])
        }

        /// `/api/v1/<path>` as JSON, nil until Prometheus answers.
        func api(_ path: String) async -> JSONValue? {
            guard let body = await MonitorRig.get("http://127.0.0.1:\(port)/api/v1/\(path)") else { return nil }
            return try? JSONValue.parse(body)
        }

        /// The instant vector of `query`, by the `line` label.
        func query(_ query: String) async -> [String: Double] {
            let escaped = query.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? query
            guard let results = await api("query?query=\(escaped)")?["data"]?["result"]?.arrayValue else { return [:] }
            var out: [String: Double] = [:]
            for result in results {
                guard let line = result["metric"]?["line"]?.stringValue,
                    let value = result["value"]?.arrayValue?.last?.stringValue.flatMap(Double.init)
                else { continue }
                out[line] = value
            }
            return out
        }

        func stop() async {
            process.signal(SIGTERM)
            _ = try? await process.result()
            try? FileManager.default.removeItem(at: folder)
        }
    }
}

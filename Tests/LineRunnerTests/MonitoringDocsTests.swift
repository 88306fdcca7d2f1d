import AstraTestSupport
import Foundation
import Testing

/// docs/monitoring.md's Prometheus scrape configuration and alert rules, as an operator copies
/// them, through Prometheus's own checker: `promtool check config` (which also loads the rule
/// file it names) and `promtool check rules`.
@Suite struct MonitoringDocsTests {
    /// The ```yaml blocks of docs/monitoring.md: the scrape configuration, then the rules.
    static func yamlBlocks() throws -> [String] {
        let text = try String(contentsOf: RepositoryRoot.appending("docs/monitoring.md"), encoding: .utf8)
        var blocks: [String] = []
        var current: [Substring]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```yaml" {
                current = []
            } else if current != nil, line == "```" {
                blocks.append(current!.joined(separator: "\n") + "\n")
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// Writes the two blocks as `prometheus.yml` and `sip-lines.rules.yml` into a new folder.
    static func writeConfiguration() throws -> URL {
        let blocks = try yamlBlocks()
        let config = try #require(blocks.first { $0.contains("scrape_configs:") })
        let rules = try #require(blocks.first { $0.contains("groups:") })
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("astra-monitoring-docs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try config.write(to: folder.appendingPathComponent("prometheus.yml"), atomically: true, encoding: .utf8)
        try rules.write(to: folder.appendingPathComponent("sip-lines.rules.yml"), atomically: true, encoding: .utf8)
        return folder
    }

    @Test func scrapeConfigAndAlertRulesPassPromtool() async throws {
        let folder = try Self.writeConfiguration()
        defer { try? FileManager.default.removeItem(at: folder) }
        let rules = try await ChildProcess.run(
            command: "promtool", ["check", "rules", folder.appendingPathComponent("sip-lines.rules.yml").path])
        #expect(rules.status == 0, "\(rules.text)\(rules.stderr)")
        #expect(rules.text.contains("SUCCESS: 2 rules found"), "\(rules.text)")
        let config = try await ChildProcess.run(
            command: "promtool", ["check", "config", folder.appendingPathComponent("prometheus.yml").path])
        #expect(config.status == 0, "\(config.text)\(config.stderr)")
        // A rule file promtool refuses fails this check: it is not vacuous.
        let broken = folder.appendingPathComponent("broken.yml")
        try "groups:\n  - name: x\n    rules:\n      - alert: A\n        expr: sip_line_up ==\n".write(
            to: broken, atomically: true, encoding: .utf8)
        #expect(try await ChildProcess.run(command: "promtool", ["check", "rules", broken.path]).status != 0)
    }
}

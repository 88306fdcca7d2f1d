import AstraTestSupport
import Foundation
import Testing

@testable import Metrics

/// The text exposition through Prometheus's own linter, `promtool check metrics` (Debian
/// `prometheus`): it parses the text format 0.0.4 and applies the naming rules (`_total` on
/// counters, base units, help present). A known-bad exposition is checked first, so a promtool
/// that accepts anything cannot make this pass.
@Suite struct PromtoolTests {
    static func check(_ text: String) async throws -> ChildProcess.Result {
        try await ChildProcess.run(command: "promtool", ["check", "metrics"], stdin: Data(text.utf8))
    }

    @Test func promtoolIsCleanOnTheTextExposition() async throws {
        let bad = try await Self.check("# HELP a x\n# TYPE a counter\na 1\n")
        #expect(bad.status != 0, "promtool accepted a counter without _total: \(bad.text)\(bad.stderr)")

        var set = ExpositionTests.sample()
        // Hostile label values must stay inside their quotes.
        set.update("sip_line_up") { $0.set(["line": "a\\b\"c\nd", "transport": "wss"], 1) }
        set.update("sip_options_duration_seconds") {
            $0.observe(["line": "empty-buckets"], .infinity)
        }
        let result = try await Self.check(set.render(.text))
        #expect(result.status == 0, "promtool: \(result.text)\(result.stderr)")
        #expect(result.text.isEmpty && result.stderr.isEmpty, "promtool: \(result.text)\(result.stderr)")
    }
}

import Metrics
import SIPCore
import SIPDialog
import SIPTransport
import Testing
import ToolSupport

@testable import LineRunner

/// What a line's health puts in the exposition: its series from the start (every cause at 0),
/// only `line`, `transport` and `server` as labels, removal on reload; the lines file's names;
/// the OPTIONS the monitor sends.
@Suite struct MonitorMetricsTests {
    static let labels = MonitorMetrics.labels(line: "ward-3", transport: "udp", server: "127.0.0.1:5060")

    @Test func aNewLineExportsZerosForEveryCause() {
        var set = MonitorMetrics.families()
        MonitorMetrics.add(Self.labels, to: &set)
        let text = set.render(.text)
        #expect(text.contains(#"sip_line_up{line="ward-3",transport="udp",server="127.0.0.1:5060"} 0"#))
        for cause in FailureCause.allCases {
            #expect(text.contains(#"sip_line_failures_total{line="ward-3",transport="udp",server="127.0.0.1:5060",cause="\#(cause.rawValue)"} 0"#))
        }
        #expect(text.contains(#"sip_options_duration_seconds_bucket{line="ward-3",transport="udp",server="127.0.0.1:5060",le="+Inf"} 0"#))
        #expect(!text.contains("sip_tls_certificate_expiry_timestamp_seconds{"), "no certificate before a TLS connection")
        #expect(text.contains(#"sip_monitor_build_info{version="\#(AstraVersion.current)"} 1"#))
    }

    @Test func healthAndActionsLandInTheirSeries() {
        var set = MonitorMetrics.families()
        MonitorMetrics.add(Self.labels, to: &set)
        var health = LineHealthTests.healthy()
        for action in health.flowDown(LineHealthTests.refused, now: .seconds(1)) + [.observeOptions(.milliseconds(7))] {
            MonitorMetrics.apply(action, Self.labels, to: &set)
        }
        MonitorMetrics.publish(health, Self.labels, to: &set)
        var cause = Self.labels
        cause["cause"] = "refused"
        #expect(set[MonitorMetrics.failures]?.value(cause) == 1)
        #expect(set[MonitorMetrics.up]?.value(Self.labels) == 0)
        #expect(set[MonitorMetrics.registered]?.value(Self.labels) == 0)
        #expect(set[MonitorMetrics.certificateExpiry]?.value(Self.labels) == 1_800_000_000)
        #expect(set.render(.text).contains(#"sip_tls_certificate_expiry_timestamp_seconds{line="ward-3",transport="udp",server="127.0.0.1:5060"} 1800000000"#))
        #expect(set[MonitorMetrics.optionsDuration]?.histogram(Self.labels)?.sum == 0.007)
    }

    @Test func removingALineRemovesEverySeriesOfIt() {
        var set = MonitorMetrics.families()
        let other = MonitorMetrics.labels(line: "ward-4", transport: "wss", server: "pbx:443")
        MonitorMetrics.add(Self.labels, to: &set)
        MonitorMetrics.add(other, to: &set)
        MonitorMetrics.remove(Self.labels, from: &set)
        let text = set.render(.openMetrics)
        #expect(!text.contains("ward-3"))
        #expect(text.contains(#"sip_line_up{line="ward-4",transport="wss",server="pbx:443"} 0"#))
        #expect(text.hasSuffix("# EOF\n"))
    }

    @Test func theLinesFileNamesLines() throws {
        let row: (String) throws(ToolError) -> MonitorLines.Entry? = { text throws(ToolError) in
            try MonitorLines.entry(Array(text.utf8)[...], number: 3, path: "lines.jsonl")
        }
        let named = try #require(try row(#"{"name":"ward-3.icu","user":"1001","password":"p","domain":"pbx.example"}"#))
        #expect(named.name == "ward-3.icu")
        #expect(named.line.user == "1001")
        #expect(try row(#"{"user":"1002","domain":"pbx.example"}"#)?.name == "1002@pbx.example")
        #expect(try row("   \r") == nil)
        #expect(throws: ToolError(.usage, "")) { try row(#"{"name":"ward 3","user":"1","domain":"d"}"#) }
        #expect(throws: ToolError(.usage, "")) { try row(#"{"name":7,"user":"1","domain":"d"}"#) }
        #expect(throws: ToolError(.usage, "")) { try row(#"{"name":"x","domain":"d"}"#) }
        do {
            _ = try row(#"{"name":"\#(String(repeating: "a", count: 65))","user":"1","domain":"d"}"#)
            Issue.record("a 65-byte name was accepted")
        } catch {
            #expect(error.message.hasPrefix("lines.jsonl:3: name must be"))
        }
    }

    @Test func optionsPingsAreRFC3261Section11Requests() throws {
        let ids = SeededIdentifierSource(seed: 7)
        let aor = try! SIPURI(parsing: "sip:1001@pbx.example")
        let registrar = try! SIPURI(parsing: "sip:pbx.example")
        var ping = OptionsPing(aor: aor, registrar: registrar, userAgent: "astra-register/0.1.0", ids: ids)
        let binding = LocalBinding(transport: .udp, host: "127.0.0.1", port: 40000)
        let first = ping.next(binding: binding, ids: ids)
        let second = ping.next(binding: binding, ids: ids)
        #expect(first.method == .options)
        #expect(first.uri == registrar)
        let a = try #require(try first.headers.cseq())
        let b = try #require(try second.headers.cseq())
        #expect(a.method == .options && b.sequence == a.sequence + 1)
        #expect(first.headers[.callID] == second.headers[.callID])
        #expect(first.headers[.via] != second.headers[.via], "a new branch per ping")
        #expect(first.headers[.via]?.hasPrefix("SIP/2.0/UDP 127.0.0.1:40000;rport;branch=z9hG4bK") == true)
        #expect(first.headers[.to] == "<sip:pbx.example>")
        #expect(first.headers[.from]?.hasPrefix("<sip:1001@pbx.example>;tag=") == true)
        #expect(first.headers[.maxForwards] == "70")
    }
}

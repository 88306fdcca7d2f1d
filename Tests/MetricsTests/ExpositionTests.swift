import Testing

@testable import Metrics

/// The exposition of a small set in both formats, byte for byte, against the text format 0.0.4
/// and OpenMetrics 1.0 grammars (HELP/TYPE order, `_total`, `_info`, cumulative buckets through
/// `+Inf`, `# UNIT`, `# EOF`).
@Suite struct ExpositionTests {
    static func sample() -> MetricSet {
        var set = MetricSet([
            MetricFamily(name: "sip_line_up", help: "1 when the line answers OPTIONS.", kind: .gauge),
            MetricFamily(name: "sip_line_failures", help: "Failures by cause.", kind: .counter),
            MetricFamily(
                name: "sip_options_duration_seconds", help: "OPTIONS round trip.",
                kind: .histogram(bounds: [0.005, 0.5, 1]), unit: "seconds"),
            MetricFamily(name: "astra_build", help: "Build of the exporter.", kind: .info),
        ])
        set.update("sip_line_up") { $0.set(["line": "ward-3", "transport": "udp"], 1) }
        set.update("sip_line_up") { $0.set(["line": "ward-4", "transport": "tls"], 0) }
        set.update("sip_line_failures") { $0.increment(["line": "ward-4", "cause": "timeout"], by: 2) }
        set.update("sip_options_duration_seconds") {
            for v in [0.001, 0.2, 0.7, 7] { $0.observe(["line": "ward-3"], v) }
        }
        set.update("astra_build") { $0.set(["version": "0.1.0"], 1) }
        return set
    }

    @Test func textFormat004() {
        #expect(
            Self.sample().render(.text) == """
                # HELP sip_line_up 1 when the line answers OPTIONS.
                # TYPE sip_line_up gauge
                sip_line_up{line="ward-3",transport="udp"} 1
                sip_line_up{line="ward-4",transport="tls"} 0
                # HELP sip_line_failures_total Failures by cause.
                # TYPE sip_line_failures_total counter
                sip_line_failures_total{line="ward-4",cause="timeout"} 2
                # HELP sip_options_duration_seconds OPTIONS round trip.
                # TYPE sip_options_duration_seconds histogram
                sip_options_duration_seconds_bucket{line="ward-3",le="0.005"} 1
                sip_options_duration_seconds_bucket{line="ward-3",le="0.5"} 2
                sip_options_duration_seconds_bucket{line="ward-3",le="1"} 3
                sip_options_duration_seconds_bucket{line="ward-3",le="+Inf"} 4
                sip_options_duration_seconds_sum{line="ward-3"} 7.901
                sip_options_duration_seconds_count{line="ward-3"} 4
                # HELP astra_build_info Build of the exporter.
                # TYPE astra_build_info gauge
                astra_build_info{version="0.1.0"} 1

                """)
    }

    @Test func openMetrics100() {
        #expect(
            Self.sample().render(.openMetrics) == """
                # TYPE sip_line_up gauge
                # HELP sip_line_up 1 when the line answers OPTIONS.
                sip_line_up{line="ward-3",transport="udp"} 1
                sip_line_up{line="ward-4",transport="tls"} 0
                # TYPE sip_line_failures counter
                # HELP sip_line_failures Failures by cause.
                sip_line_failures_total{line="ward-4",cause="timeout"} 2
                # TYPE sip_options_duration_seconds histogram
                # UNIT sip_options_duration_seconds seconds
                # HELP sip_options_duration_seconds OPTIONS round trip.
                sip_options_duration_seconds_bucket{line="ward-3",le="0.005"} 1
                sip_options_duration_seconds_bucket{line="ward-3",le="0.5"} 2
                sip_options_duration_seconds_bucket{line="ward-3",le="1.0"} 3
                sip_options_duration_seconds_bucket{line="ward-3",le="+Inf"} 4
                sip_options_duration_seconds_sum{line="ward-3"} 7.901
                sip_options_duration_seconds_count{line="ward-3"} 4
                # TYPE astra_build_info info
                # HELP astra_build_info Build of the exporter.
                astra_build_info{version="0.1.0"} 1
                # EOF

                """)
    }

    @Test func emptySetIsJustEOFInOpenMetrics() {
        #expect(MetricSet().render(.text) == "")
        #expect(MetricSet().render(.openMetrics) == "# EOF\n")
    }

    @Test func removedSeriesLeaveTheExposition() {
        var set = Self.sample()
        set.removeSeries { $0["line"] == "ward-4" }
        let text = set.render(.text)
        #expect(!text.contains("ward-4"))
        #expect(text.contains(#"sip_line_up{line="ward-3",transport="udp"} 1"#))
        // The family's index still finds the series that moved.
        set.update("sip_line_up") { $0.set(["line": "ward-3", "transport": "udp"], 0) }
        #expect(set["sip_line_up"]?.value(["line": "ward-3", "transport": "udp"]) == 0)
        #expect(set["sip_line_up"]?.series.count == 1)
    }

    @Test func removeOneSeriesKeepsTheOthersAddressable() {
        var family = MetricFamily(name: "g", help: "h", kind: .gauge)
        for i in 0..<4 { family.set(["i": String(i)], Double(i)) }
        family.remove(["i": "1"])
        #expect(family.series.map(\.labels) == [["i": "0"], ["i": "2"], ["i": "3"]])
        family.set(["i": "3"], 30)
        #expect(family.value(["i": "3"]) == 30)
        #expect(family.value(["i": "1"]) == nil)
    }

    @Test func counterTouchExposesZeroAndIgnoresNegativeSteps() {
        var family = MetricFamily(name: "f", help: "h", kind: .counter)
        family.touch(["cause": "dns"])
        #expect(family.value(["cause": "dns"]) == 0)
        family.increment(["cause": "dns"], by: -5)
        #expect(family.value(["cause": "dns"]) == 0)
        family.increment(["cause": "dns"])
        #expect(family.value(["cause": "dns"]) == 1)
    }

    @Test func histogramIsCumulativeAndIgnoresNaN() {
        var h = Histogram(bounds: Histogram.sipLatencyBounds)
        for v in [0.004, 0.005, 0.0051, 4.9, 6, .nan] { h.observe(v) }
        #expect(h.count == 5)
        // 0.004 and 0.005 (a bound is inclusive) in le=0.005, 0.0051 in le=0.01, 4.9 in le=5, 6 only in +Inf.
        #expect(h.cumulative == [2, 3, 3, 3, 3, 3, 3, 3, 3, 4, 5])
        #expect(Histogram.sipLatencyBounds.first == 0.005 && Histogram.sipLatencyBounds.last == 5)
    }
}

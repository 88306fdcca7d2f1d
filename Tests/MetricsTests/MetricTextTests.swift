import Testing

@testable import Metrics

/// Escaping and numbers as the two grammars define them: a label value escapes `\`, `"` and LF
/// in both; `# HELP` escapes `"` only in OpenMetrics (text 0.0.4 would reject `\"` there).
@Suite struct MetricTextTests {
    @Test func labelValuesEscapeBackslashQuoteAndNewline() {
        #expect(MetricText.labelValue(#"a\b"c"# + "\nd") == #"a\\b\"c\nd"#)
        #expect(MetricText.labelValue("Station 3 – Nord") == "Station 3 – Nord")
        #expect(MetricText.labelValue("cr\rstays") == "cr\rstays")
    }

    @Test func helpEscapingDependsOnTheFormat() {
        let help = #"say "hi" \ bye"# + "\nnext"
        #expect(MetricText.help(help, format: .text) == #"say "hi" \\ bye\nnext"#)
        #expect(MetricText.help(help, format: .openMetrics) == #"say \"hi\" \\ bye\nnext"#)
    }

    @Test func renderedLabelsAreEscaped() {
        var set = MetricSet([MetricFamily(name: "sip_line_up", help: "h", kind: .gauge)])
        set.update("sip_line_up") { $0.set(["line": "x\"} 1\nevil 2"], 1) }
        #expect(set.render(.text).hasSuffix(#"sip_line_up{line="x\"} 1\nevil 2"} 1"# + "\n"))
    }

    @Test func numbers() {
        #expect(MetricText.number(0) == "0")
        #expect(MetricText.number(-0.0) == "0")
        #expect(MetricText.number(3) == "3")
        #expect(MetricText.number(1_765_432_100) == "1765432100")
        #expect(MetricText.number(0.005) == "0.005")
        #expect(MetricText.number(2.5) == "2.5")
        #expect(MetricText.number(1e-7) == "1e-07")
        #expect(MetricText.number(1e300) == "1e+300")
        #expect(MetricText.number(.infinity) == "+Inf")
        #expect(MetricText.number(-.infinity) == "-Inf")
        #expect(MetricText.number(.nan) == "NaN")
        #expect(MetricText.bound(1, format: .openMetrics) == "1.0")
        #expect(MetricText.bound(1, format: .text) == "1")
        #expect(MetricText.bound(0.25, format: .openMetrics) == "0.25")
    }

    @Test func namesOfTheDataModel() {
        #expect(MetricFamily.isValidName("sip_line_up"))
        #expect(MetricFamily.isValidName("job:rate5m"))
        #expect(!MetricFamily.isValidName("9lives"))
        #expect(!MetricFamily.isValidName("sip-line"))
        #expect(!MetricFamily.isValidName(""))
        #expect(MetricLabels.isValidName("line"))
        #expect(!MetricLabels.isValidName("__name__"))
        #expect(!MetricLabels.isValidName("a:b"))
    }

    @Test func labelsKeepOrderAndReplaceInPlace() {
        var labels: MetricLabels = ["line": "a", "transport": "udp"]
        labels["line"] = "b"
        labels["server"] = "127.0.0.1:5060"
        #expect(labels.pairs.map(\.name) == ["line", "transport", "server"])
        labels["transport"] = nil
        #expect(labels == MetricLabels([("line", "b"), ("server", "127.0.0.1:5060")]))
    }
}

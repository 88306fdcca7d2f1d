import Testing

@testable import ToolSupport

/// Monitoring Plugins guidelines: threshold ranges, perfdata, the status line and exit codes.
@Suite struct MonitoringTests {
    /// (range, value, alerts) rows of the guidelines' table.
    static let rows: [(String, Double, Bool)] = [
        ("10", -1, true), ("10", 0, false), ("10", 10, false), ("10", 10.5, true),
        ("10:", 9.99, true), ("10:", 10, false), ("10:", 1e9, false),
        ("~:10", -1e9, false), ("~:10", 10, false), ("~:10", 10.01, true),
        ("10:20", 9, true), ("10:20", 15, false), ("10:20", 21, true),
        ("@10:20", 9, false), ("@10:20", 10, true), ("@10:20", 20, true), ("@10:20", 21, false),
        ("0.5", 0.49, false), ("0.5", 0.51, true),
    ]

    @Test func rangesAlertAsTheGuidelinesSay() throws {
        for (text, value, alerts) in Self.rows {
            let range = try #require(MonitoringRange(text))
            #expect(range.alerts(value) == alerts, "\(text) at \(value)")
        }
    }

    @Test func badRanges() {
        for text in ["", "abc", "2:1", "@", "1:x", "nan", "inf", ":"] { #expect(MonitoringRange(text) == nil, "\(text)") }
    }

    @Test func stateCriticalBeatsWarning() {
        let w = MonitoringRange("0.5"), c = MonitoringRange("2")
        #expect(MonitoringStatus.state(of: 0.1, warning: w, critical: c) == .ok)
        #expect(MonitoringStatus.state(of: 0.7, warning: w, critical: c) == .warning)
        #expect(MonitoringStatus.state(of: 3, warning: w, critical: c) == .critical)
        #expect(MonitoringStatus.state(of: 3, warning: nil, critical: nil) == .ok)
        #expect(MonitoringStatus.State.allCases.map(\.exitCode.rawValue) == [0, 1, 2, 3])
    }

    @Test func lineAndPerfdata() {
        let status = MonitoringStatus(
            service: "SIP", state: .warning, text: "a|b\nc",
            performance: [
                .init("time", 0.61, unit: "s", warning: MonitoringRange("0.5"), critical: MonitoringRange("2"),
                      minimum: 0, maximum: 10),
                .init("connect", 0.000125, unit: "s", minimum: 0), .init("two words", 3),
            ])
        #expect(status.line == "SIP WARNING - a/b c|time=0.61s;0.5;2;0;10 connect=0.000125s;;;0 'two words'=3")
    }

    @Test func pluginErrorsAreUnknownOrCritical() {
        let plugin = MonitoringPlugin(flag: "nagios", service: "SIP")
        #expect(plugin.isRequested(in: ["-v", "--nagios"]) && !plugin.isRequested(in: ["--", "--nagios"]))
        #expect(plugin.status(for: .usage("bad")).line == "SIP UNKNOWN - bad")
        #expect(plugin.status(for: ToolError(.network, "down")).line == "SIP CRITICAL - down")
        // A certificate that does not verify against the configured CAs is configuration: the
        // check could not be made, so UNKNOWN, not CRITICAL (Monitoring Plugins "return codes").
        #expect(plugin.status(for: ToolError(.certificate, "untrusted")).line == "SIP UNKNOWN - untrusted")
        #expect(plugin.status(for: ToolError(.internal, "bug")).state == .unknown)
    }

    /// One mapping from a tool's exit code to the plugin state, for thrown errors and for the
    /// outcome of a check alike.
    @Test func failureStateFollowsTheExitCode() {
        let table: [(ExitCode, MonitoringStatus.State)] = [
            (.usage, .unknown), (.certificate, .unknown), (.software, .unknown),
            (.failure, .critical), (.network, .critical), (.mediaFailed, .critical),
        ]
        for (exit, state) in table { #expect(MonitoringStatus.State.failure(exit: exit) == state, "exit \(exit)") }
    }

    @Test func parseErrorsUnderThePluginFlagPrintAStatusLine() async {
        let spec = CommandSpec(
            name: "demo", abstract: "A demo.", options: [.flag("nagios", help: "Plugin.")],
            monitoring: MonitoringPlugin(flag: "nagios", service: "DEMO"))
        let out = BufferSink(), err = BufferSink()
        let code = await ToolMain.execute(spec, arguments: ["--nagios", "--bogus"], stdout: out, stderr: err) { _ in
            .success
        }
        #expect(code.rawValue == 3 && out.text == "DEMO UNKNOWN - unknown option --bogus\n" && err.text.isEmpty)
        let thrown = await ToolMain.execute(spec, arguments: ["--nagios"], stdout: out, stderr: err) { _ in
            throw ToolError(.timeout, "no answer")
        }
        #expect(thrown.rawValue == 2 && out.text.hasSuffix("DEMO CRITICAL - no answer\n"))
    }
}

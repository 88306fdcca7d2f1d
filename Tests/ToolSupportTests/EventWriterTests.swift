import AstraTestSupport
import Testing
import ToolSupport

@Suite struct EventWriterTests {
    @Test func jsonEventsStartWithEventAndMillisecondsSinceStart() {
        let clock = TestClock()
        let sink = BufferSink()
        let writer = EventWriter(format: .json, sink: sink, clock: clock)
        writer.emit("trying")
        clock.advance(by: .milliseconds(1234))
        writer.emit("registered", ["expires": 3600, "transport": "udp", "t": 99, "event": "spoof"])
        clock.advance(by: .microseconds(999))
        writer.emit("ended", ["reason": "bye"])
        #expect(
            sink.lines == [
                #"{"event":"trying","t":0}"#,
                #"{"event":"registered","t":1234,"expires":3600,"transport":"udp"}"#,
                #"{"event":"ended","t":1234,"reason":"bye"}"#,
            ])
    }

    @Test func textModeRendersKeyValuePairsOrTheGivenText() {
        let clock = TestClock()
        let sink = BufferSink()
        let writer = EventWriter(format: .text, sink: sink, clock: clock)
        clock.advance(by: .milliseconds(1005))
        writer.emit("registered", ["expires": 3600, "server": "pbx.example.com:5061", "note": "two words"])
        clock.advance(by: .seconds(12))
        writer.emit("ended", text: "call ended: bye")
        #expect(
            sink.lines == [
                #"[   1.005] registered expires=3600 server=pbx.example.com:5061 note="two words""#,
                "[  13.005] call ended: bye",
            ])
    }

    @Test func recordsAreWrittenWithoutEventFields() {
        let sink = BufferSink()
        EventWriter(format: .json, sink: sink).record(["v": 1, "user": "alice"])
        #expect(sink.text == #"{"v":1,"user":"alice"}"# + "\n")
    }

    @Test(
        arguments: [
            ([String](), false, OutputFormat.json),
            ([], true, .text),
            (["--json"], true, .json),
            (["--format", "text"], false, .text),
            (["--format=json"], true, .json),
            (["--format", "text", "--json"], true, .json),
        ] as [([String], Bool, OutputFormat)])
    func formatFollowsFlagsThenTerminal(_ arguments: [String], _ isTerminal: Bool, _ expected: OutputFormat) throws {
        let spec = CommandSpec(name: "demo", abstract: "Demo.", options: CommonOptions.output)
        guard case .run(let parsed) = try CommandLineParser(spec).parse(arguments) else {
            Issue.record("expected .run")
            return
        }
        #expect(OutputFormat.resolve(parsed, stdoutIsTerminal: isTerminal) == expected)
    }
}

import AstraTestSupport
import Foundation
import Testing

/// The pictures the tools draw (`astra-pushsim run|live --format svg`, `astra-trace`), through
/// the built binaries: well-formed SVG that rsvg-convert renders, with the lanes, arrows and
/// red violations a reader needs; and the JSON mode left exactly as it was.
@Suite struct PicturesToolTests {
    static func temporary(_ name: String) -> String {
        NSTemporaryDirectory() + "astra-pictures-\(name)-\(UUID().uuidString)"
    }

    /// issue 19 "Must show": the naive client's killed-app wake as a sequence diagram — six
    /// lanes, the push and launch arrows, the R1 violation in red — rendered to PNG.
    @Test func naiveKilledWakeIsASequenceDiagram() async throws {
        let svg = Self.temporary("wake") + ".svg", png = Self.temporary("wake") + ".png"
        defer { for p in [svg, png] { try? FileManager.default.removeItem(atPath: p) } }
        guard let result = try await BuiltTool(name: "astra-pushsim").run(
            ["run", "killed", "--policy", "naive", "--format", "svg", "-o", svg])
        else { return }
        #expect(result.status == 1, "a broken rule still exits 1")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "astra-pushsim: killed with naive: broke R1, R5\n")
        let text = try String(contentsOfFile: svg, encoding: .utf8)
        for lane in ["Caller", "Kamailio", "Gateway", "APNs", "iOS", "App"] { #expect(text.contains(">\(lane)</text>")) }
        #expect(text.contains("VoIP push call") && text.contains("push delivered (after 250 ms)"))
        #expect(text.contains("✗ R1 networking_before_report"))
        #expect(text.contains("fill=\"#c62828\" font-weight=\"bold\">✗ R1"), "the violation is red")
        #expect(text.contains("✗ killed with the naive policy: broke R1, R5"))
        let mode = try FileManager.default.attributesOfItem(atPath: svg)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let xml = try await ChildProcess.run(command: "python3", ["-c", "import sys,xml.dom.minidom as m; m.parse(sys.argv[1])", svg])
        #expect(xml.status == 0, "\(xml.stderr)")
        let rendered = try await ChildProcess.run(command: "rsvg-convert", ["-o", png, svg])
        #expect(rendered.status == 0, "\(rendered.stderr)")
        #expect(((try? FileManager.default.attributesOfItem(atPath: png)[.size] as? Int) ?? 0) > 10_000)
    }

    @Test func correctPolicyDrawsNoRed() async throws {
        guard let result = try await BuiltTool(name: "astra-pushsim").run(["run", "killed", "--format", "svg"])
        else { return }
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("<?xml"))
        #expect(!result.stdout.contains("✗"))
        #expect(result.stdout.contains("✔ killed with the correct policy: no rule broken"))
    }

    @Test func outputWithoutSVGIsAUsageError() async throws {
        guard let result = try await BuiltTool(name: "astra-pushsim").run(["run", "killed", "-o", "x.svg"])
        else { return }
        #expect(result.status == 64)
        #expect(result.stderr == "astra-pushsim: -o/--output needs --format svg\n")
    }

    /// One line of a `--sip-trace-file`, as astra-call writes it.
    static func traceLine(_ t: Int, _ direction: String, _ message: String, transport: String = "wss",
                          remote: String = "127.0.0.1:8443") -> String {
        let escaped = message.replacingOccurrences(of: "\r\n", with: "\\r\\n")
        return "{\"event\":\"sip\",\"t\":\(t),\"time\":\"2026-11-30T07:05:01.\(100_000 + t * 1000)Z\","
            + "\"direction\":\"\(direction)\",\"transport\":\"\(transport)\",\"local\":\"127.0.0.1:40112\","
            + "\"remote\":\"\(remote)\",\"bytes\":\(message.utf8.count),\"message\":\"\(escaped)\"}"
    }

    /// A trace file as astra-call writes it, read back: the ladder, one message, the SVG, pcap.
    @Test func traceReaderDrawsALadder() async throws {
        let trace = Self.temporary("trace") + ".jsonl", pcap = Self.temporary("trace") + ".pcap"
        defer { for p in [trace, pcap] { try? FileManager.default.removeItem(atPath: p) } }
        func line(_ t: Int, _ direction: String, _ message: String) -> String { Self.traceLine(t, direction, message) }
        let invite = "INVITE sip:1002@pbx SIP/2.0\r\nVia: SIP/2.0/WSS x.invalid;branch=z9hG4bK1\r\nFrom: <sip:1001@pbx>;tag=1\r\n"
            + "To: <sip:1002@pbx>\r\nCall-ID: c1\r\nCSeq: 1 INVITE\r\nMax-Forwards: 70\r\nContent-Length: 0\r\n\r\n"
        let busy = "SIP/2.0 486 Busy Here\r\nVia: SIP/2.0/WSS x.invalid;branch=z9hG4bK1\r\nFrom: <sip:1001@pbx>;tag=1\r\n"
            + "To: <sip:1002@pbx>;tag=2\r\nCall-ID: c1\r\nCSeq: 1 INVITE\r\nContent-Length: 0\r\n\r\n"
        try (line(0, "sent", invite) + "\n" + line(35, "received", busy) + "\n").write(
            toFile: trace, atomically: true, encoding: .utf8)
        let tool = BuiltTool(name: "astra-trace")
        guard let ladder = try await tool.run([trace]) else { return }
        #expect(ladder.status == 0, "\(ladder.stderr)")
        let lines = ladder.stdout.split(separator: "\n")
        #expect(lines.first == "SIP trace: 2 messages from 2026-11-30T07:05:01.100000Z, 0.035 s")
        #expect(lines.contains { $0.hasPrefix("0.000      1") && $0.contains("INVITE") && $0.contains("▶│") })
        #expect(lines.contains { $0.hasPrefix("0.035      2") && $0.contains("│◀") && $0.contains("486 Busy Here (INVITE)") })
        #expect(!ladder.stdout.contains("\u{1B}["), "no colour when piped")
        guard let one = try await tool.run(["--message", "2", trace]) else { return }
        #expect(one.stdout.hasPrefix("#2 ----- 2026-11-30T07:05:01.135000Z RECV WSS 127.0.0.1:40112 <- 127.0.0.1:8443"))
        #expect(one.stdout.contains("SIP/2.0 486 Busy Here\r\n"))
        guard let missing = try await tool.run(["--message", "3", trace]) else { return }
        #expect(missing.status == 1 && missing.stderr == "astra-trace: there is no message 3: the trace has 2\n")
        guard let svg = try await tool.run(["--format", "svg", trace]) else { return }
        #expect(svg.stdout.contains("486 Busy Here (INVITE)") && svg.stdout.contains("#c62828"))
        guard let converted = try await tool.run(["--pcap", pcap, trace]) else { return }
        #expect(converted.status == 0)
        let rows = try await Tshark.fields(pcap, filter: "sip", ["sip.Method", "sip.Status-Code"])
        #expect(rows.map { $0[0] + $0[1] } == ["INVITE", "486"])
    }

    /// A ladder with a long label (`407 Proxy Authentication Required (INVITE)`), piped: laid
    /// out for 80 columns (what a terminal that does not say has), labels cut, not 105 wide.
    @Test func theLadderFitsEightyColumnsWhenNotOnATerminal() async throws {
        let trace = Self.temporary("wide") + ".jsonl"
        defer { try? FileManager.default.removeItem(atPath: trace) }
        func line(_ t: Int, _ direction: String, _ message: String) -> String {
            Self.traceLine(t, direction, message, transport: "udp", remote: "127.0.0.1:5060")
        }
        let head = "Via: SIP/2.0/UDP x.invalid;branch=z9hG4bK1\r\nFrom: <sip:1001@pbx>;tag=1\r\n"
        let invite = "INVITE sip:1002@pbx SIP/2.0\r\n" + head
            + "To: <sip:1002@pbx>\r\nCall-ID: c1\r\nCSeq: 1 INVITE\r\nMax-Forwards: 70\r\nContent-Length: 0\r\n\r\n"
        let challenge = "SIP/2.0 407 Proxy Authentication Required\r\n" + head
            + "To: <sip:1002@pbx>;tag=2\r\nCall-ID: c1\r\nCSeq: 1 INVITE\r\nContent-Length: 0\r\n\r\n"
        try (line(0, "sent", invite) + "\n" + line(3, "received", challenge) + "\n").write(
            toFile: trace, atomically: true, encoding: .utf8)
        guard let ladder = try await BuiltTool(name: "astra-trace").run([trace]) else { return }
        #expect(ladder.status == 0, "\(ladder.stderr)")
        let widest = ladder.stdout.split(separator: "\n").map(\.count).max() ?? 0
        #expect(widest <= 80, "\(widest) columns:\n\(ladder.stdout)")
        #expect(ladder.stdout.contains("407 Proxy"), "\(ladder.stdout)")
    }

    @Test func badTraceLinesAreUsageErrors() async throws {
        let trace = Self.temporary("bad") + ".jsonl"
        defer { try? FileManager.default.removeItem(atPath: trace) }
        try "{\"event\":\"registered\",\"t\":3}\n".write(toFile: trace, atomically: true, encoding: .utf8)
        guard let result = try await BuiltTool(name: "astra-trace").run([trace]) else { return }
        #expect(result.status == 64)
        #expect(result.stderr == "astra-trace: '\(trace)':1: \"event\" is not sip, rtp or rtcp\n")
        guard let zero = try await BuiltTool(name: "astra-trace").run(["/dev/zero"]) else { return }
        #expect(zero.status == 64)
        #expect(zero.stderr.hasPrefix("astra-trace: '/dev/zero'"), "\(zero.stderr)")
    }
}

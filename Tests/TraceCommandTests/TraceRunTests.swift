import Capture
import Glibc
import SIPTransport
import Testing
import ToolSupport

@testable import TraceCommand

/// astra-trace's run over a trace file, in process (the tool's help and pictures: ToolsTests).
@Suite struct TraceRunTests {
    /// `text` in a file of its own, removed when the test ends.
    final class TraceFile {
        let path: String
        init(_ text: String) {
            var template = Array("/tmp/trace-command-XXXXXX".utf8CString)
            let fd = mkstemp(&template)
            path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let bytes = Array(text.utf8)
            _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            close(fd)
        }
        deinit { unlink(path) }
    }

    static func run(_ arguments: [String]) async -> (code: ExitCode, stdout: String, stderr: String) {
        let out = BufferSink()
        let err = BufferSink()
        let code = await ToolMain.execute(ToolSpecs.trace, arguments: arguments, stdout: out, stderr: err) { context in
            try TraceRun(context: context).run()
        }
        return (code, out.text, err.text)
    }

    static let phone = SocketAddress(ip: "127.0.0.1", port: 5062)!
    static let proxy = SocketAddress(ip: "127.0.0.1", port: 5060)!

    static func packet(_ ms: Int, _ direction: CapturedPacket.Direction, _ text: String) -> CapturedPacket {
        CapturedPacket(
            time: WireTime(seconds: 1_800_000_000, nanoseconds: ms * 1_000_000), direction: direction, content: .sip,
            transport: .udp, local: phone, remote: proxy, bytes: Array(text.utf8))
    }

    static let register =
        "REGISTER sip:127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:5062;branch=z9hG4bK-1\r\nMax-Forwards: 70\r\n"
        + "From: <sip:1001@127.0.0.1>;tag=a1\r\nTo: <sip:1001@127.0.0.1>\r\nCall-ID: reg-1@astra\r\nCSeq: 1 REGISTER\r\n"
        + "Content-Length: 0\r\n\r\n"
    static let ok =
        "SIP/2.0 200 OK\r\nVia: SIP/2.0/UDP 127.0.0.1:5062;branch=z9hG4bK-1\r\nFrom: <sip:1001@127.0.0.1>;tag=a1\r\n"
        + "To: <sip:1001@127.0.0.1>;tag=b2\r\nCall-ID: reg-1@astra\r\nCSeq: 1 REGISTER\r\nContent-Length: 0\r\n\r\n"

    @Test func aTraceIsDrawnAndOneMessageShownInFull() async {
        let start = WireTime(seconds: 1_800_000_000, nanoseconds: 0)
        let lines = [Self.packet(3, .sent, Self.register), Self.packet(9, .received, Self.ok)]
            .map { $0.traceLine(since: start) + "\n" }.joined()
        let file = TraceFile(lines)
        let ladder = await Self.run([file.path])
        #expect(ladder.code == .success)
        #expect(ladder.stdout.contains("REGISTER") && ladder.stdout.contains("200"))
        #expect(ladder.stderr.isEmpty)
        let second = await Self.run(["--message", "2", file.path])
        #expect(second.code == .success)
        #expect(second.stdout.contains("SIP/2.0 200 OK"))
        #expect(!second.stdout.contains("REGISTER sip:"))
    }

    /// A line that is not a trace record is the user's to fix (exit 64), named by file and line.
    @Test func aLineThatIsNotATraceRecordIsAUsageError() async {
        let file = TraceFile("{\"event\":\"sip\"}\nnot json\n")
        let result = await Self.run([file.path])
        #expect(result.code == .usage)
        #expect(result.stderr.contains(":1"))
    }
}

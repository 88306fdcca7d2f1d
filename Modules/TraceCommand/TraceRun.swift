import Capture
import SIPCore
import SIPTransport
import ToolSupport

/// Reads a `--sip-trace-file` (JSON Lines, one redacted SIP message each) and prints its
/// ladder, its SVG, one message or every message in full; optionally writes it as pcap.
struct TraceRun {
    let context: ToolContext

    /// Messages in one trace file (each costs its bytes): far more than any call.
    static let maxMessages = 1_000_000

    func run() throws(ToolError) -> ExitCode {
        let arguments = context.arguments
        let path = arguments.string("file")
        var packets: [CapturedPacket] = []
        try InputReader.forEachLine(path, maxLine: .traceLine, maxLines: Self.maxMessages) {
            line, number throws(ToolError) in
            guard line.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else { return }
            do throws(CaptureError) {
                packets.append(try CapturedPacket(traceLine: Array(line), where: "\(InputReader.name(path)):\(number)"))
            } catch {
                throw ToolError(.usage, error.message)
            }
        }
        packets = packets.filter { $0.content == .sip }
        if let callID = arguments.string("call-id") {
            packets = packets.filter { (try? SIPMessage(parsing: $0.bytes))?.headers.callID == callID }
            guard !packets.isEmpty else {
                context.diagnostics.error("no message with Call-ID \(callID)")
                return .failure
            }
        }
        if let pcap = arguments.string("pcap") { try writePcap(packets, to: pcap) }
        if let number = arguments.int("message") {
            guard number <= packets.count else {
                context.diagnostics.error("there is no message \(number): the trace has \(packets.count)")
                return .failure
            }
            try emit(full(packets[number - 1], number: number))
            return .success
        }
        var ladder = SIPLadder()
        for packet in packets { ladder.add(packet) }
        var diagram = ladder.diagram
        diagram.title = title(packets)
        switch arguments.string("format") ?? "ladder" {
        case "svg":
            try emit(SequenceDiagramSVG().renderFitting(diagram))
        case "full":
            try emit(packets.enumerated().map { full($0.element, number: $0.offset + 1) }.joined())
        default:
            let color = arguments.flag("color") || (arguments.string("output") == nil && FileDescriptorSink.standardOutput.isTerminal)
            // The terminal's width when drawn on one (80 when unknown: a file, a pipe).
            let toFile = arguments.string("output").map { $0 != "-" } ?? false
            let width = toFile ? 80 : FileDescriptorSink.standardOutput.layoutWidth
            try emit(LadderText(fitting: diagram, color: color, width: width).render(diagram))
        }
        return .success
    }

    /// `SIP trace: 16 messages, 2026-11-30T07:05:01.123456Z – 2.028 s`.
    private func title(_ packets: [CapturedPacket]) -> String {
        guard let first = packets.first, let last = packets.last else { return "SIP trace: no messages" }
        let span = last.time.seconds(since: first.time)
        let stamp = SIPTraceFormatter.iso8601(seconds: first.time.seconds, nanoseconds: first.time.nanoseconds)
        return "SIP trace: \(packets.count) message\(packets.count == 1 ? "" : "s") from \(stamp), "
            + "\((span * 1000).rounded() / 1000) s"
    }

    /// A message as `--sip-trace` prints it, with its ladder number.
    private func full(_ packet: CapturedPacket, number: Int) -> String {
        let text = SIPTraceFormatter.format(
            direction: packet.direction == .sent ? .sent : .received, transport: packet.transport,
            local: packet.local, remote: packet.remote, timestamp: (packet.time.seconds, packet.time.nanoseconds),
            message: packet.bytes)
        return "#\(number) " + text
    }

    private func emit(_ text: String) throws(ToolError) {
        guard let path = context.arguments.string("output"), path != "-" else {
            context.output.write(text)
            return
        }
        try write(Array(text.utf8), to: path, option: "-o")
    }

    private func writePcap(_ packets: [CapturedPacket], to path: String) throws(ToolError) {
        var writer = PcapWriter()
        var bytes = PcapWriter.fileHeader()
        for packet in packets { bytes += writer.records(packet.forDissectors) }
        try write(bytes, to: path, option: "--pcap")
    }

    private func write(_ bytes: [UInt8], to path: String, option: String) throws(ToolError) {
        try OutputFile.save(bytes, to: path, option: option)
    }
}

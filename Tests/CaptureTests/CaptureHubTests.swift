import AstraTestSupport
import Foundation
import SIPTransport
import Testing
import ToolSupport

@testable import Capture

/// The hub: files created 0600, one redaction before every export, the trace file read back
/// exactly, and failures that stop one file without stopping the tool.
@Suite struct CaptureHubTests {
    typealias F = CaptureFixtures

    static func message(_ packet: CapturedPacket) -> SIPTrace.Message {
        SIPTrace.Message(
            direction: packet.direction == .sent ? .sent : .received, transport: packet.transport,
            local: packet.local, remote: packet.remote,
            timestamp: (packet.time.seconds, packet.time.nanoseconds), bytes: packet.bytes)
    }

    @Test func everyExportIsRedactedAndPrivate() async throws {
        let base = F.temporaryPath("hub")
        print("HUBBASE", base)
        defer { if ProcessInfo.processInfo.environment["KEEP"] == nil { for s in [".jsonl", ".pcap"] { try? FileManager.default.removeItem(atPath: base + s) } } }
        var configuration = CaptureHub.Configuration()
        configuration.traceFile = base + ".jsonl"
        configuration.pcapFile = base + ".pcap"
        let hub = try CaptureHub(configuration)
        let trace = try #require(hub.sipTrace)
        for packet in F.call {
            if packet.content == .sip {
                trace.record(
                    packet.direction == .sent ? .sent : .received, transport: packet.transport, local: packet.local,
                    remote: packet.remote, message: packet.bytes)
            } else {
                hub.record(media: packet)
            }
        }
        hub.close()
        for suffix in [".jsonl", ".pcap"] {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: base + suffix))
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(!text.contains(F.secretResponse) && !text.contains(F.secretSDES), "\(suffix) leaks a secret")
            #expect(text.contains("<redacted>"), "\(suffix)")
            let mode = try FileManager.default.attributesOfItem(atPath: base + suffix)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(suffix)")
        }
        let lines = try String(contentsOfFile: base + ".jsonl", encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 6)
        let rows = try await Tshark.fields(base + ".pcap", filter: "sip || rtp", ["sip.Method", "sip.Status-Code", "rtp.seq"])
        #expect(rows.count == 26, "\(rows)")
    }

    @Test func traceLineRoundTrip() throws {
        let packet = F.packet(6, .sent, F.register1)
        let line = packet.traceLine(since: F.time(0))
        #expect(line.hasPrefix("{\"event\":\"sip\",\"t\":6,\"time\":\"2025-11-30T07:05:01.006123Z\""), "\(line)")
        let back = try CapturedPacket(traceLine: Array(line.utf8), where: "x:1")
        #expect(back == packet)
        var v6 = F.packet(0, .received, F.busy, transport: .udp)
        v6.remote = try #require(SocketAddress(ip: "::1", port: 5060))
        #expect(try CapturedPacket(traceLine: Array(v6.traceLine(since: F.time(0)).utf8), where: "x:2") == v6)
    }

    @Test func badTraceLinesSayWhere() {
        for (line, words) in [
            ("not json", "x:9: not JSON"), ("{\"event\":\"sip\"}", "x:9: no \"time\" string"),
            ("{\"event\":\"ping\",\"time\":\"2025-11-30T07:05:01Z\"}", "x:9: \"event\" is not sip"),
            (
                "{\"event\":\"sip\",\"time\":\"2025-13-30T07:05:01Z\",\"direction\":\"sent\"}",
                "x:9: \"time\" is not"
            ),
        ] {
            #expect(throws: CaptureError.self) { try CapturedPacket(traceLine: Array(line.utf8), where: "x:9") }
            do { _ = try CapturedPacket(traceLine: Array(line.utf8), where: "x:9") } catch {
                #expect(error.message.hasPrefix(words), "\(error.message)")
            }
        }
    }

    @Test func anUnwritablePathIsAClearError() {
        var configuration = CaptureHub.Configuration()
        configuration.pcapFile = "/nonexistent-dir/x.pcap"
        #expect(throws: CaptureError.self) { try CaptureHub(configuration) }
        do { _ = try CaptureHub(configuration) } catch {
            #expect(error.message == "--pcap /nonexistent-dir/x.pcap: No such file or directory")
        }
    }

    /// HEP to a real UDP socket on loopback: the datagrams arrive, one per SIP message, and
    /// carry no secret.
    @Test func hepDatagramsReachACollector() throws {
        let collector = try UDPBatchSocketListener()
        defer { collector.close() }
        var configuration = CaptureHub.Configuration()
        configuration.hep = collector.address
        configuration.hepEncoder = HEPEncoder(captureID: 42)
        let hub = try CaptureHub(configuration)
        for packet in F.call where packet.content == .sip { hub.record(Self.message(packet)) }
        hub.close()
        let datagrams = collector.receive(count: 6, within: 5)
        #expect(datagrams.count == 6)
        for datagram in datagrams {
            #expect(datagram.starts(with: Array("HEP3".utf8)))
            #expect(!String(decoding: datagram, as: UTF8.self).contains(F.secretResponse))
        }
    }
}

extension CaptureHubTests {
    /// HEP to a port where no collector listens: one warning in words (the target, the reason,
    /// what to check), not the transport's code name or the system call.
    @Test func aHEPCollectorThatIsNotThereIsOneWarningInWords() async throws {
        let gone = try UDPBatchSocketListener()
        let address = gone.address
        gone.close()  // nothing listens there now: the kernel answers ICMP port unreachable
        var configuration = CaptureHub.Configuration()
        configuration.hep = address
        let stderr = BufferSink()
        let hub = try CaptureHub(configuration, diagnostics: Diagnostics(tool: "astra-register", sink: stderr))
        // The first datagram draws the ICMP error; a later send reports it.
        let reported = await eventually(timeout: .seconds(20), every: .milliseconds(20)) {
            for packet in F.call where packet.content == .sip { hub.record(Self.message(packet)) }
            return !stderr.text.isEmpty
        }
        hub.close()
        #expect(reported, "no warning after sending to a closed port")
        #expect(
            stderr.text == "astra-register: warning: --hep \(address): cannot send to the collector (connection "
                + "refused): is it listening there? Further failures are not reported\n", "\(stderr.text)")
    }

    @Test func contentLengthFollowsTheRedactedBody() {
        let redacted = Array(String(decoding: CaptureFixtures.invite, as: UTF8.self)
            .replacingOccurrences(of: CaptureFixtures.secretSDES, with: "<redacted>").utf8)
        let fixed = ContentLengthFix.apply(redacted)
        let text = String(decoding: fixed, as: UTF8.self)
        let body = text.components(separatedBy: "\r\n\r\n")[1]
        #expect(text.contains("Content-Length: \(body.utf8.count)\r\n"))
        #expect(ContentLengthFix.apply(CaptureFixtures.register1) == CaptureFixtures.register1)
        let compact = Array("MESSAGE sip:a@b SIP/2.0\r\nl: 10\r\n\r\nhi".utf8)
        #expect(String(decoding: ContentLengthFix.apply(compact), as: UTF8.self).hasSuffix("l: 2\r\n\r\nhi"))
    }
}

extension CaptureHubTests {
    @Test func aRedactedSDESKeyStaysBase64ForDissectors() throws {
        let redacted = Array(String(decoding: CaptureFixtures.invite, as: UTF8.self)
            .replacingOccurrences(of: CaptureFixtures.secretSDES, with: "<redacted>").utf8)
        let text = String(decoding: DissectableRedaction.apply(redacted), as: UTF8.self)
        #expect(text.contains("inline:cmVkYWN0ZWRyZWRhY3RlZHJlZGFjdGVkcmVkYWN0\r\n"))
        let decoded = try #require(Data(base64Encoded: String(decoding: DissectableRedaction.standIn, as: UTF8.self)))
        #expect(String(decoding: decoded, as: UTF8.self) == "redactedredactedredactedredact")
    }
}

import AstraJSON
import Capture
import ToolSupport

/// `--sip-trace-file` JSON Lines as `astra-trace` reads them back, then everything it makes of
/// them: the ladder (text and SVG), pcap records and HEP3 packets of each message. Seeds: trace
/// lines our own writer produces for the SIP vectors (sent and received, UDP/TCP/WSS, IPv4/IPv6).
///
/// Invariants: a parsed line written again reads back as the same packet; a pcap record holds
/// at least the message's 16-byte record header per segment; a HEP packet starts with `HEP3`
/// and its length field is its length.
enum TraceFileTarget {
    static let target = FuzzTarget(
        name: "trace-file",
        summary: "astra-trace input: --sip-trace-file lines, then ladder (text, SVG), pcap records, HEP3 packets",
        maxLength: 16_384, dictionary: "json",
        seeds: seeds, run: run)

    static func run(_ bytes: [UInt8]) {
        var ladder = SIPLadder()
        var pcap = PcapWriter(rtpPayload: bytes.first.map { $0 & 1 == 1 } ?? false)
        let hep = HEPEncoder()
        for (n, line) in bytes.split(separator: 10).prefix(32).enumerated() {
            guard let packet = try? CapturedPacket(traceLine: Array(line), where: "fuzz:\(n + 1)") else { continue }
            let again = try? CapturedPacket(traceLine: Array(packet.traceLine(since: packet.time).utf8), where: "again")
            invariant(again == packet, "a trace line written again does not read back as the same packet")
            let dissected = packet.forDissectors
            let records = pcap.records(dissected)
            invariant(records.count >= 16, "a pcap record without its header")
            if let datagram = hep.packet(dissected, correlationID: "fuzz") {
                invariant(datagram.starts(with: Array("HEP3".utf8)), "a HEP packet without HEP3")
                invariant(
                    datagram.count >= 6 && Int(datagram[4]) << 8 | Int(datagram[5]) == datagram.count,
                    "HEP length field wrong")
            }
            _ = SIPLadder.label(packet.bytes)
            _ = ladder.add(packet)
        }
        _ = LadderText(lanes: ladder.diagram.lanes).render(ladder.diagram)
        _ = SequenceDiagramSVG().renderFitting(ladder.diagram)
    }

    static func seeds() -> [[UInt8]] {
        let addresses: [(String, String)] = [
            ("127.0.0.1:40112", "127.0.0.1:5060"), ("[::1]:40112", "[2001:db8::1]:5061"),
        ]
        var lines: [String] = []
        for (i, message) in SeedFiles.sipMessages().prefix(24).enumerated() {
            let (local, remote) = addresses[i % 2]
            let transport = ["udp", "tcp", "wss", "tls", "ws"][i % 5]
            let text = String(decoding: message, as: UTF8.self)
            let json: JSONObject = [
                "event": .string(i % 7 == 6 ? "rtp" : "sip"), "t": .int(i * 20),
                "time": .string("2025-11-30T07:05:\(String(10 + i)).123456Z"),
                "direction": .string(i % 2 == 0 ? "sent" : "received"), "transport": .string(transport),
                "local": .string(local), "remote": .string(remote), "bytes": .int(message.count),
                "message": .string(text),
            ]
            lines.append(json.jsonText)
        }
        return stride(from: 0, to: lines.count, by: 4).map {
            Array(lines[$0..<min($0 + 4, lines.count)].joined(separator: "\n").utf8)
        }
    }
}

import AstraJSON
import AstraTestSupport
import Foundation
import Testing

@testable import SIPTransport

extension KamailioPeer {
    /// A call's `--sip-trace-file` and `--pcap` in wire order: each message recorded when it was
    /// sent or received, so no answer comes before its request and pcap time never goes back.
    /// Over UDP a request leaves without waiting and its answer can arrive before the sender is
    /// back from `sendto`; the trace once showed `200 OK (REGISTER)` before the authenticated
    /// REGISTER and `407` before the INVITE, and the pcap had negative time deltas.
    @Suite struct CallTraceOrderKamailioTests {
        typealias H = CallToolHarness

        @Test func aUDPCallIsTracedInWireOrder() async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            let base = NSTemporaryDirectory() + "astra-order-\(UUID().uuidString)"
            let files = ["caller.jsonl", "caller.pcap", "callee.jsonl", "callee.pcap"].map { base + "-" + $0 }
            defer { for file in files { try? FileManager.default.removeItem(atPath: file) } }
            let callee = try await H.callee(
                server, .udp, user: "1042", ["--after", "0.1", "--sip-trace-file", files[2], "--pcap", files[3]])
            // The caller: REGISTER 401/200, INVITE 407,
            // INVITE 100/180/200, ACK, BYE 200, un-REGISTER 200.
            let caller = try H.dial(
                server, .udp, user: "1041", to: "1042",
                ["--duration", "0.5", "--sip-trace-file", files[0], "--pcap", files[1]])
            #expect(await caller.exitStatus(within: .seconds(20)) == 0, "caller: \(caller.stderr)")
            #expect(await callee.exitStatus(within: .seconds(10)) == 0, "callee: \(callee.stderr)")
            for (trace, pcap) in [(files[0], files[1]), (files[2], files[3])] {
                let messages = try Self.messages(trace)
                #expect(messages.count >= 8, "\(trace): \(messages.count) messages")
                var requests: Set<String> = []
                var latest = ""
                for (index, message) in messages.enumerated() {
                    if message.isResponse {
                        #expect(requests.contains(message.cseq), "\(trace) #\(index + 1): \(message.startLine) before its request")
                    } else {
                        requests.insert(message.cseq)
                    }
                    #expect(message.time >= latest, "\(trace) #\(index + 1): time goes back")
                    latest = message.time
                }
                let backwards = try await Tshark.fields(pcap, filter: "frame.time_delta < 0", ["frame.number"])
                #expect(backwards.isEmpty, "\(pcap): frames \(backwards.map { $0[0] }) go back in time")
                let sip = try await Tshark.fields(pcap, filter: "sip", ["sip.CSeq"])
                #expect(sip.map { $0[0] } == messages.map(\.cseq), "\(pcap): the pcap's SIP in the trace's order")
            }
        }

        struct TracedMessage {
            var time: String
            var startLine: String
            var cseq: String
            var isResponse: Bool { startLine.hasPrefix("SIP/2.0 ") }
        }

        /// The `--sip-trace-file` lines: time (ISO 8601, so text order is time order), start line, CSeq.
        static func messages(_ path: String) throws -> [TracedMessage] {
            try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { line in
                let value = try JSONValue.parse(String(line))
                let text = value["message"]?.stringValue ?? ""
                let lines = text.components(separatedBy: "\r\n")
                let cseq = lines.first { $0.lowercased().hasPrefix("cseq:") }.map {
                    $0.dropFirst(5).trimmingCharacters(in: .whitespaces)
                }
                return TracedMessage(
                    time: value["time"]?.stringValue ?? "", startLine: lines.first ?? "", cseq: cseq ?? "")
            }
        }
    }
}

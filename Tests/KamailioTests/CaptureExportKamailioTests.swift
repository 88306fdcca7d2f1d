import AstraTestSupport
import Foundation
import Testing

@testable import SIPTransport

extension KamailioPeer {
    /// What a user sees of a WSS call in their own tools (issue 19 "Must show"): the `--pcap`
    /// file read by tshark, the `--hep` datagrams decoded by sngrep, the `--sip-trace-file`
    /// they are counted against. Over WSS the wire shows only TLS; these are the decoded view.
    @Suite struct CaptureExportKamailioTests {
        typealias H = CallToolHarness

        /// A WSS caller ↔ UDP callee call through Kamailio with `--pcap` and `--sip-trace-file`:
        /// tshark dissects every SIP message of the trace as SIP, in the same order, and finds
        /// both RTP streams (G.711 A-law, telephone-event for the DTMF) from the SDP.
        @Test func pcapOfAWSSCallDissectsInTshark() async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            let base = NSTemporaryDirectory() + "astra-capture-\(UUID().uuidString)"
            defer { for s in [".pcap", ".jsonl"] { try? FileManager.default.removeItem(atPath: base + s) } }
            let callee = try await H.callee(server, .udp, user: "1032", ["--after", "0.2"])
            let caller = try H.dial(
                server, .wss, user: "1031", to: "1032",
                ["--duration", "2", "--dtmf", "12", "--pcap", base + ".pcap", "--sip-trace-file", base + ".jsonl"])
            #expect(await caller.exitStatus(within: .seconds(20)) == 0, "caller: \(caller.stderr)")
            #expect(await callee.exitStatus(within: .seconds(10)) == 0, "callee: \(callee.stderr)")
            let trace = try String(contentsOfFile: base + ".jsonl", encoding: .utf8).split(separator: "\n")
            let traced = trace.compactMap { line -> String? in
                guard let message = H.field("message", in: String(line)) else { return nil }
                return String(message.prefix { $0 != "\\" })  // the start line
            }
            let sip = try await Tshark.fields(
                base + ".pcap", filter: "sip", ["frame.protocols", "sip.Request-Line", "sip.Status-Line"])
            #expect(sip.count == trace.count && sip.count >= 12, "\(sip.count) in pcap, \(trace.count) traced")
            #expect(sip.map { $0[1] + $0[2] } == traced, "pcap order = trace order")
            #expect(sip.allSatisfy { $0[0].contains("tcp:sip") }, "WSS is TCP with SIP inside")
            #expect(sip.contains { $0[1].hasPrefix("INVITE") } && sip.contains { $0[1].hasPrefix("BYE") })
            let streams = try await Tshark.fields(base + ".pcap", filter: "rtp", ["rtp.ssrc", "rtp.p_type"])
            #expect(Set(streams.map { $0[0] }).count == 2, "both directions")
            #expect(streams.count > 150, "\(streams.count) RTP packets recognised")
            #expect(Set(streams.map { $0[1] }) == ["8", "101"], "PCMA and the caller's RFC 4733 digits")
            let text = try String(contentsOfFile: base + ".pcap", encoding: .isoLatin1)
            #expect(!text.contains("astra1031"), "no password")
            #expect(text.contains("response=\"<redacted>\""))
        }

        /// `astra-register` and `astra-call` over WSS with `--hep` to sngrep listening for HEP:
        /// sngrep's own pcap of what it decoded holds the REGISTER/INVITE flow between the WSS
        /// socket addresses, with our capture id.
        @Test func sngrepShowsTheWSSFlowFromHEP() async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            let collector = try await SngrepCollector()
            let hep = ["--hep", "udp:127.0.0.1:\(collector.port)", "--hep-id", "77"]
            let (registered, _, err) = try await ToolProcess.run(
                "astra-register", H.line(server, .wss, user: "1033") + hep)
            #expect(registered == 0, "\(err)")
            let callee = try await H.callee(server, .udp, user: "1034", [])
            let caller = try H.dial(server, .wss, user: "1033", to: "1034", ["--duration", "1"] + hep)
            #expect(await caller.exitStatus(within: .seconds(20)) == 0, "caller: \(caller.stderr)")
            #expect(await callee.exitStatus(within: .seconds(10)) == 0, "callee: \(callee.stderr)")
            // Stopped once sngrep has written the whole flow (a bound, not a delay), then judged by tshark.
            let path = try await collector.stop(once: { flow in
                flow.filter { $0 == "REGISTER" }.count >= 4 && ["INVITE", "ACK", "BYE"].allSatisfy(flow.contains)
            })
            defer { try? FileManager.default.removeItem(atPath: path) }
            // sngrep writes what it decoded as UDP or TCP after the HEP protocol id: either port.
            let rows = try await Tshark.fields(path, filter: "sip", ["tcp.dstport", "sip.Method", "sip.Status-Code", "udp.dstport"])
                .map { [$0[0] + $0[3], $0[1], $0[2]] }
            let flow = rows.map { $0[1].isEmpty ? $0[2] : $0[1] }
            #expect(flow.filter { $0 == "REGISTER" }.count >= 4, "\(flow)")  // register + unregister, twice
            #expect(flow.contains("INVITE") && flow.contains("ACK") && flow.contains("BYE"), "\(flow)")
            let wss = String(server.port(for: .wss))
            #expect(rows.contains { $0[0] == wss && $0[1] == "INVITE" }, "the INVITE went to the WSS port: \(rows)")
        }
    }
}

import AstraTestSupport
import Foundation
import Testing

@testable import SIPTransport

extension KamailioPeer {
    /// issue 8 "Must show": interop with sipp (Debian's sip-tester) through Kamailio. sipp runs
    /// scenarios from scripts/sipp with `-rtp_echo`, so astra-call must hear its own tone back.
    @Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sipp")))
    struct AstraCallSippTests {
        typealias H = CallToolHarness
        static let sipp = "/usr/bin/sipp"
        static func scenario(_ name: String) -> String { KamailioServer.repoRoot + "/scripts/sipp/\(name).xml" }
        /// A port for sipp (which cannot bind port 0) where no UDP socket is bound now.
        static func freePort() -> String { String(TestPorts.freeUDP(in: 20_000...30_000, alignment: 2)) }
        /// sipp's media port for `-rtp_echo`, below the kernel's ephemeral range: it binds the
        /// audio echo on P and the video echo on P + 2, so four ports from P are free now and none
        /// is `sipPort`.
        static func freeMediaPort(besides sipPort: UInt16) -> UInt16 {
            var port = TestPorts.freeUDP(in: 20_000...30_000, alignment: 2, span: 4)
            while (port...(port + 3)).contains(sipPort) { port = TestPorts.freeUDP(in: 20_000...30_000, alignment: 2, span: 4) }
            return port
        }

        /// A sipp UAS (registered by a sipp REGISTER scenario with digest) answers astra-call over
        /// WSS; with `uas-early`, a 183 with SDP comes first and early media flows before the 200.
        @Test(arguments: ["uas", "uas-early"]) func sippUASAnswersAstraCall(scenario: String) async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            // sipp cannot bind port 0: its SIP port and media ports (RTP echo on P, video echo on
            // P + 2) are picked free, sipp is waited for until it listens (a generous bound: a busy
            // machine), and it starts again elsewhere if it never does or exits (a port another
            // test bound in between). What sipp said is kept for the failure message.
            var uasStarted: ToolProcess?
            var attempts: [String] = []
            for _ in 0..<3 where uasStarted == nil {
                let sipPort = TestPorts.freeUDP(in: 20_000...30_000, alignment: 2)
                let mediaPort = Self.freeMediaPort(besides: sipPort)
                let (registered, _, regErr) = try await ToolProcess.run(
                    Self.sipp,
                    [
                        "127.0.0.1:\(server.sipPort)", "-sf", Self.scenario("register"), "-s", "1040", "-au", "1040",
                        "-ap", "astra1040", "-p", String(sipPort), "-i", "127.0.0.1", "-m", "1", "-nostdin",
                    ], timeout: .seconds(20))
                try #require(registered == 0, "sipp REGISTER: \(regErr)")
                let uas = try ToolProcess(
                    Self.sipp,
                    [
                        "-sf", Self.scenario(scenario), "-p", String(sipPort), "-i", "127.0.0.1", "-mi", "127.0.0.1",
                        "-mp", String(mediaPort), "-rtp_echo", "-m", "1", "-nostdin",
                    ])
                if await uas.waitFor(.seconds(20), { TestPorts.udpBound(sipPort) && TestPorts.udpBound(mediaPort) }) {
                    uasStarted = uas
                } else {
                    let status = await uas.exitStatus(within: .milliseconds(1))  // ends it
                    attempts.append("ports \(sipPort)/\(mediaPort): exit \(status.map(String.init) ?? "none") \(uas.stderr.suffix(300))")
                }
            }
            let uas = try #require(uasStarted, "sipp UAS never listened: \(attempts)")
            let recording = H.temporaryPath("sipp-uas")
            defer { try? FileManager.default.removeItem(atPath: recording) }
            let caller = try H.dial(
                server, .wss, user: "1041", to: "1040", ["--tone", "440", "--record", recording, "--duration", "2"])
            #expect(await caller.exitStatus(within: .seconds(15)) == 0, "caller: \(caller.stderr)")
            #expect(await uas.exitStatus(within: .seconds(10)) == 0, "sipp: \(uas.stdout)")
            #expect(!caller.events("answered").isEmpty)
            #expect(try H.toneSeconds(recording, frequency: 440) >= 1.5, "the tone echoed by sipp")
            if scenario == "uas-early" {
                let lines = caller.stdout.split(separator: "\n").map(String.init)
                let early = lines.firstIndex { $0.contains("\"event\":\"early_media\"") }
                let firstRTP = lines.firstIndex { $0.contains("\"event\":\"first_rtp\"") }
                let answered = lines.firstIndex { $0.contains("\"event\":\"answered\"") }
                #expect(early != nil && firstRTP != nil && answered != nil, "\(caller.stdout)")
                if let early, let firstRTP, let answered {
                    #expect(early < firstRTP && firstRTP < answered, "early media heard before the answer")
                }
            }
        }

        /// sipp answers with an SDP without `a=rtcp-mux` (as linphonec and baresip do): astra-call
        /// keeps RTCP on its RTP port + 1, sends its reports from there to sipp's media port + 1
        /// (where an independent RTCP peer answers them, RFC 3550 §6.4.1), receives the answers
        /// on its + 1 and reports `rtt_ms` (RFC 3550 §11, RFC 5761 §5.1.3).
        @Test func rtcpOnPortPlusOneWhenThePeerDeclinesMux() async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            // sipp cannot bind port 0: its SIP port, its media port and the RTCP peer's + 1 are
            // picked free (TestPorts), sipp is waited for until it listens (a generous bound: a
            // busy machine), and it starts again elsewhere if it never does.
            var started: (peer: RTCPTestPeer, uas: ToolProcess)?
            for _ in 0..<3 where started == nil {
                let sipPort = TestPorts.random(alignment: 2), mediaPort = TestPorts.random(alignment: 2, span: 3)
                guard ![sipPort, mediaPort, mediaPort + 1, mediaPort + 2].contains(where: TestPorts.udpBound),
                      let peer = try? RTCPTestPeer(port: mediaPort + 1)
                else { continue }
                let (registered, _, regErr) = try await ToolProcess.run(
                    Self.sipp,
                    [
                        "127.0.0.1:\(server.sipPort)", "-sf", Self.scenario("register"), "-s", "1044", "-au", "1044",
                        "-ap", "astra1044", "-p", String(sipPort), "-i", "127.0.0.1", "-m", "1", "-nostdin",
                    ], timeout: .seconds(20))
                try #require(registered == 0, "sipp REGISTER: \(regErr)")
                let uas = try ToolProcess(
                    Self.sipp,
                    [
                        "-sf", Self.scenario("uas"), "-p", String(sipPort), "-i", "127.0.0.1", "-mi", "127.0.0.1",
                        "-mp", String(mediaPort), "-rtp_echo", "-m", "1", "-nostdin",
                    ])
                if await uas.waitFor(.seconds(20), { TestPorts.udpBound(sipPort) && TestPorts.udpBound(mediaPort) }) {
                    started = (peer, uas)
                } else {
                    peer.stop()
                    _ = await uas.exitStatus(within: .milliseconds(1))  // ends it
                }
            }
            let (rtcpPeer, uas) = try #require(started, "sipp UAS never listened")
            defer { rtcpPeer.stop() }
            let callerRTP = TestPorts.random(alignment: 2, span: 2)
            // RTCP every 5 s × 0.5…1.5 (RFC 3550 §6.2): a 9 s call carries at least one report.
            let caller = try H.dial(
                server, .udp, user: "1045", to: "1044",
                ["--tone", "440", "--duration", "9", "--rtp-port", String(callerRTP)])
            #expect(await caller.exitStatus(within: .seconds(25)) == 0, "caller: \(caller.stderr)")
            #expect(await uas.exitStatus(within: .seconds(10)) == 0, "sipp: \(uas.stdout)")
            let ended = try #require(caller.events("ended").first, "\(caller.stdout)")
            print("RTCP on + 1 with sipp declining mux: peer got \(rtcpPeer.reports) reports from \(rtcpPeer.sources); "
                  + "astra-call: \(ended)")
            #expect(rtcpPeer.reports >= 1 && rtcpPeer.answered >= 1, "reports at sipp's + 1: \(rtcpPeer.reports)")
            #expect(rtcpPeer.sources == ["127.0.0.1:\(callerRTP + 1)"], "RTCP sent from: \(rtcpPeer.sources)")
            #expect(Int(H.field("rtcp_received", in: ended) ?? "") ?? 0 >= 1, "\(ended)")
            #expect(Double(H.field("rtt_ms", in: ended) ?? "") != nil, "no rtt_ms: \(ended)")
        }

        /// A sipp UAC (1042, digest on the INVITE's 407) calls astra-call answering over WSS; sipp hangs up.
        @Test func sippUACCallsAstraCall() async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            let recording = H.temporaryPath("sipp-uac")
            let users = NSTemporaryDirectory() + "astra-sipp-users-\(UUID().uuidString).csv"
            defer { for p in [recording, users] { try? FileManager.default.removeItem(atPath: p) } }
            try "SEQUENTIAL\n1042;\n".write(toFile: users, atomically: true, encoding: .utf8)
            let callee = try await H.callee(server, .wss, user: "1043", ["--tone", "1000", "--record", recording])
            let port = Self.freePort(), mediaPort = String(Self.freeMediaPort(besides: UInt16(port)!))
            let (status, out, _) = try await ToolProcess.run(
                Self.sipp,
                [
                    "127.0.0.1:\(server.sipPort)", "-sf", Self.scenario("uac"), "-inf", users, "-s", "1043",
                    "-au", "1042", "-ap", "astra1042", "-p", port, "-i", "127.0.0.1", "-mi", "127.0.0.1",
                    "-mp", mediaPort, "-rtp_echo", "-m", "1", "-nostdin",
                ], timeout: .seconds(20))
            #expect(status == 0, "sipp UAC: \(out.suffix(1500))")
            #expect(await callee.exitStatus(within: .seconds(5)) == 0, "callee: \(callee.stderr)")
            #expect(callee.events("ended").first.flatMap { H.field("reason", in: $0) } == "remote_hangup")
            #expect(try H.toneSeconds(recording, frequency: 1000) >= 2.0, "the tone echoed by sipp")
        }
    }
}

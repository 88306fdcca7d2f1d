import AstraTestSupport
import Foundation
import Testing

@testable import SIPTransport

extension KamailioPeer {
    /// `astra-call load --media webrtc`: 5 WebRTC calls at once (WSS signalling, ICE +
    /// DTLS-SRTP, rtcp-mux) through the project's Kamailio and rtpengine, which bridges each to
    /// plain RTP for a UDP answering fleet that echoes; every call hears its own tone back, so
    /// the audio went both ways through rtpengine. Skipped when rtpengine is not installed
    /// (RTPEngineWebRTCTests.rtpengineIsThereInCI fails under CI=true then).
    @Suite struct CallLoadWebRTCTests {
        typealias C = CallLoadKamailioTests
        typealias H = CallToolHarness

        @Test(.enabled(if: RTPEngineServer.binary != nil, RTPEngineServer.skipReason))
        func fiveWebRTCCallsThroughRTPEngine() async throws {
            let engine = try RTPEngineServer.start()
            defer { engine.stop() }
            let server = try KamailioServer.start(rtpengine: engine.control)
            defer { server.stop() }
            let fleet = try await C.fleet(server, users: 1071...1072, ["--echo", "--media", "rtp"])
            let load = try ToolProcess(
                "astra-call",
                ["load", "--lines", C.linesFile(server, users: 1073...1077, transport: "wss"), "--insecure",
                 "--targets", C.targetsFile(1071...1072), "--media", "webrtc",
                 "--calls", "5", "--concurrency", "5", "--hold", "2", "--expect-tone", "440",
                 "--expect-tone-share", "0.3"])
            let context = { "rtpengine log:\n\(engine.log.suffix(2000))" }
            #expect(await load.exitStatus(within: .seconds(25)) == 0, "load: \(load.stderr) \(context())")
            let results = load.events("call_result")
            #expect(results.count == 5, "\(load.stdout)")
            for result in results {
                #expect(H.field("ok", in: result) == "true", "\(result)")
                #expect(Int(H.field("packets_received", in: result) ?? "") ?? 0 > 40, "\(result)")
            }
            let summary = try C.summary(load)
            #expect(summary["ok"] as? Int == 5 && summary["two_way_media"] as? Int == 5, "\(summary)")
            fleet.signal(SIGINT)
            #expect(await fleet.exitStatus(within: .seconds(15)) == 0, "fleet: \(fleet.stderr)")
            let fleetSummary = try #require(fleet.events("fleet_summary").first)
            #expect(H.field("remote_hangups", in: fleetSummary) == "5", "\(fleetSummary)")
            #expect(H.field("up_at_end", in: fleetSummary) == "0", "\(fleetSummary)")
        }
    }
}

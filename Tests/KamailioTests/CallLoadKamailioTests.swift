import AstraTestSupport
import Foundation
import Testing

@testable import SIPTransport

extension KamailioPeer {
    /// `astra-call load` against an `astra-call answer --load` fleet through the project's
    /// Kamailio: many calls at once with media both ways, SIGINT ending every call with BYE,
    /// and failures counted by the status the far end gave.
    @Suite struct CallLoadKamailioTests {
        typealias H = CallToolHarness

        static func linesFile(_ server: KamailioServer, users: ClosedRange<Int>, transport: String = "udp") -> String {
            let path = NSTemporaryDirectory() + "astra-call-load-\(UUID().uuidString).jsonl"
            let port = server.port(for: TransportKind(rawValue: transport)!)
            let text = users.map { user in
                "{\"v\":1,\"user\":\"\(user)\",\"password\":\"astra\(user)\",\"domain\":\"127.0.0.1\","
                    + "\"server\":\"127.0.0.1:\(port)\",\"transport\":\"\(transport)\"}"
            }.joined(separator: "\n")
            FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
            return path
        }

        static func targetsFile(_ users: ClosedRange<Int>) -> String {
            let path = NSTemporaryDirectory() + "astra-call-targets-\(UUID().uuidString).txt"
            FileManager.default.createFile(atPath: path, contents: Data(users.map(String.init).joined(separator: "\n").utf8))
            return path
        }

        /// Starts `answer --load` and waits until every line is registered and waiting.
        static func fleet(_ server: KamailioServer, users: ClosedRange<Int>, _ extra: [String]) async throws -> ToolProcess {
            let fleet = try ToolProcess("astra-call", ["answer", "--load", linesFile(server, users: users)] + extra)
            let ready = await fleet.waitFor(.seconds(20)) { !fleet.events("waiting").isEmpty }
            try #require(ready, "fleet never registered: \(fleet.stderr)")
            return fleet
        }

        static func summary(_ process: ToolProcess) throws -> [String: Any] {
            let line = try #require(process.events("load_summary").first, "no summary: \(process.stdout) \(process.stderr)")
            return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }

        /// 20 calls up at once, each answered by the echoing fleet: every call has packets both
        /// ways and hears its own tone back; the fleet saw a BYE for each and has none left up.
        @Test func twentyConcurrentCallsWithTwoWayAudio() async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            let fleet = try await Self.fleet(server, users: 1081...1084, ["--echo"])
            let load = try ToolProcess(
                "astra-call",
                ["load", "--lines", Self.linesFile(server, users: 1085...1089), "--targets", Self.targetsFile(1081...1084),
                 "--calls", "20", "--concurrency", "20", "--rate", "40/s", "--hold", "2", "--expect-tone", "440",
                 "--expect-tone-share", "0.3"])
            #expect(await load.exitStatus(within: .seconds(40)) == 0, "load: \(load.stderr)")
            let results = load.events("call_result")
            #expect(results.count == 20, "\(load.stdout)")
            for result in results {
                #expect(H.field("ok", in: result) == "true", "\(result)")
                #expect(Int(H.field("packets_received", in: result) ?? "") ?? 0 > 40, "\(result)")
            }
            let summary = try Self.summary(load)
            #expect(summary["ok"] as? Int == 20 && summary["two_way_media"] as? Int == 20, "\(summary)")
            fleet.signal(SIGINT)
            #expect(await fleet.exitStatus(within: .seconds(15)) == 0, "fleet: \(fleet.stderr)")
            let fleetSummary = try #require(fleet.events("fleet_summary").first)
            #expect(H.field("remote_hangups", in: fleetSummary) == "20", "\(fleetSummary)")
            #expect(H.field("up_at_end", in: fleetSummary) == "0", "\(fleetSummary)")
        }

        /// SIGINT while 8 calls are up: a summary of what ran, and the fleet saw a BYE for each.
        @Test func sigintEndsEveryCallWithBye() async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            let fleet = try await Self.fleet(server, users: 1091...1092, [])
            let load = try ToolProcess(
                "astra-call",
                ["load", "--lines", Self.linesFile(server, users: 1093...1094), "--targets", Self.targetsFile(1091...1092),
                 "--calls", "8", "--concurrency", "8", "--hold", "60"])
            #expect(await fleet.waitFor(.seconds(20)) { fleet.events("answered").count == 8 }, "\(fleet.stdout)")
            load.signal(SIGINT)
            #expect(await load.exitStatus(within: .seconds(15)) == 0, "load: \(load.stderr)")
            let summary = try Self.summary(load)
            // The fleet's 200s are not yet the caller's: a 200 that reaches the caller after SIGINT
            // is a call it abandons (ACK, then BYE: RFC 3261 §15), counted so, never a failure.
            #expect(summary["stopped"] as? String == "signal", "\(summary)")
            let answered = summary["answered"] as? Int ?? -1, abandoned = summary["abandoned"] as? Int ?? -1
            #expect(answered >= 1 && answered + abandoned == 8 && summary["failed"] as? Int == 0, "\(summary)")
            #expect(load.events("call_result").count == 8)
            #expect(await fleet.waitFor(.seconds(10)) { fleet.events("ended").count == 8 }, "\(fleet.stdout)")
            #expect(fleet.events("ended").allSatisfy { H.field("reason", in: $0) == "remote_hangup" }, "\(fleet.stdout)")
            fleet.signal(SIGINT)
            #expect(await fleet.exitStatus(within: .seconds(15)) == 0, "fleet: \(fleet.stderr)")
            let fleetSummary = try #require(fleet.events("fleet_summary").first)
            #expect(H.field("up_at_end", in: fleetSummary) == "0", "\(fleetSummary)")
            #expect(H.field("local_hangups", in: fleetSummary) == "0", "\(fleetSummary)")
        }

        /// Targets that answer 486 and 503: every call failed, counted under the status that
        /// reached the caller — 486 as sent, and 500 for the 503, which a proxy must not relay
        /// as 503 (RFC 3261 §16.7 step 6: Kamailio turns it into 500).
        @Test func busyAndUnavailableCountedByCause() async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            let busy = try await Self.fleet(server, users: 1095...1095, ["--reject", "486"])
            let down = try await Self.fleet(server, users: 1096...1096, ["--reject", "503"])
            let load = try ToolProcess(
                "astra-call",
                ["load", "--lines", Self.linesFile(server, users: 1097...1097), "--targets", Self.targetsFile(1095...1096),
                 "--calls", "6", "--concurrency", "3", "--hold", "1"])
            #expect(await load.exitStatus(within: .seconds(30)) == 1, "load: \(load.stderr)")
            let summary = try Self.summary(load)
            let causes = try #require(summary["failed_by_cause"] as? [String: Int], "\(summary)")
            #expect(causes == ["486": 3, "500": 3], "\(summary)")
            #expect(summary["failed"] as? Int == 6 && summary["ok"] as? Int == 0, "\(summary)")
            for fleet in [busy, down] { fleet.signal(SIGINT) }
            for fleet in [busy, down] { #expect(await fleet.exitStatus(within: .seconds(15)) != nil) }
        }
    }
}

import AstraTestSupport
import Foundation
import Glibc
import Testing
import ToolSupport

@testable import SIPTransport

extension KamailioPeer {
    /// Connection-oriented load against the project's Kamailio: `--storm` (a fresh TLS +
    /// WebSocket connection per registration), `--fleet` (lines held on their own connections
    /// with keep-alives), `--shard I/N` run as N processes and `--merge`. Figures belong to the
    /// bench (Benchmarks/bench-register-stream); these check behaviour and counts.
    @Suite struct ConnectionLoadTests {
        /// Load users 100000… (config/kamailio: a distinct user per line, password astra+user).
        static func lines(_ count: Int, server: String, transport: String, caFile: String?, first: Int = 100_000)
            -> String
        {
            (0..<count).map { index in
                let user = first + index
                let ca = caFile.map { ",\"ca_file\":\"\($0)\"" } ?? ""
                return "{\"v\":1,\"user\":\"\(user)\",\"password\":\"astra\(user)\",\"domain\":\"127.0.0.1\","
                    + "\"server\":\"\(server)\",\"transport\":\"\(transport)\"\(ca)}"
            }.joined(separator: "\n")
        }

        static func events(_ name: String, _ out: String) -> [String] {
            out.split(separator: "\n").map(String.init).filter { $0.contains("\"event\":\"\(name)\"") }
        }

        static func field(_ name: String, _ line: String) -> Int? {
            guard let range = line.range(of: "\"\(name)\":") else { return nil }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        }

        @Test func aStormOf200WSSRegistrationsEachOnAFreshConnection() async throws {
            // One TLS worker, as the fleet below: with two, Kamailio 5.6.3 + OpenSSL 3 corrupts
            // its shared memory under TLS load (docs/decisions.md D48).
            let server = try KamailioServer.start(tcpChildren: 1)
            defer { server.stop() }
            let (status, out, err) = try await ToolProcess.run(
                "astra-register", ["--load", "-", "--storm", "--concurrency", "50", "--json"],
                stdin: Self.lines(200, server: "127.0.0.1:\(server.wssPort)", transport: "wss", caFile: server.caFile),
                timeout: .seconds(120))
            #expect(status == 0, "\(err)")
            let summary = try #require(Self.events("load_summary", out).first, "\(out.suffix(800))")
            for (key, value) in [("registered", 200), ("failed", 0), ("connections", 200), ("unregistered", 200)] {
                #expect(Self.field(key, summary) == value, "\(key): \(summary)")
            }
            #expect(summary.contains("\"mode\":\"storm\"") && summary.contains("\"transport\":\"wss\""))
            #expect(summary.contains("\"tls_ms\":{") && summary.contains("\"websocket_ms\":{"), "\(summary)")
            let results = Self.events("line_result", out)
            #expect(results.count == 200 && results.allSatisfy { $0.contains("\"handshake_ms\":") }, "\(out.prefix(600))")
            #expect(!out.contains("astra100") && !err.contains("astra100"), "a password leaked")
        }

        @Test func aFleetOf500LinesIsHeldWithKeepAlivesAndUnregistered() async throws {
            // One TLS worker: Kamailio 5.6.3 with OpenSSL 3 (Debian 12) has crashed on shared TLS
            // state under concurrent handshakes in two workers (kamailio issues 3791, 3635).
            let server = try KamailioServer.start(tcpChildren: 1)
            defer { server.stop() }
            let (status, out, err) = try await ToolProcess.run(
                "astra-register",
                ["--load", "-", "--fleet", "--duration", "3", "--keep-alive", "1", "--concurrency", "100", "--json"],
                stdin: Self.lines(500, server: "127.0.0.1:\(server.wssPort)", transport: "wss", caFile: server.caFile,
                                  first: 101_000),
                timeout: .seconds(180))
            #expect(status == 0, "\(err)")
            let summary = try #require(Self.events("load_summary", out).first, "\(out.suffix(800))")
            for (key, value) in [("registered", 500), ("failed", 0)] {
                #expect(Self.field(key, summary) == value, "\(key): \(summary)")
            }
            // Drops are the bench's figure (0 of 10,000 there); here a connection Kamailio closes
            // must be a `line_dropped` event, and the line must come back (reconnect, re-register).
            // Seen once in CI-like runs: 1 of 500, "the server closed the connection".
            let drops = try #require(Self.field("drops", summary))
            #expect(drops <= 5, "\(summary)")
            #expect(Self.events("line_dropped", out).count == drops)
            let held = try #require(Self.field("held_at_end", summary))
            #expect(held >= 500 - drops && Self.field("unregistered", summary) == held, "\(summary)")
            let pings = try #require(Self.field("keep_alive_pings", summary))
            #expect(pings >= 500, "every held line pinged at least once in 3 s: \(summary)")
            let pongs = try #require(Self.field("keep_alive_pongs", summary))
            #expect(pongs >= pings - drops, "every ping on a live connection answered: \(summary)")
            #expect(summary.contains("\"rss_kib_per_line\":"))
        }

        /// Three processes, a third of the lines each (`--shard I/3`), then `--merge`: every
        /// line registered once, one summary; bad shards are usage errors.
        @Test func shardsRunAsProcessesAndMergeIntoOneSummary() async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            let input = Self.lines(60, server: "127.0.0.1:\(server.sipPort)", transport: "tcp", caFile: nil,
                                   first: 102_000)
            let runs = try (0..<3).map { index in
                try ToolProcess("astra-register", ["--load", "-", "--storm", "--shard", "\(index)/3", "--json"],
                                stdin: input)
            }
            var outputs = ""
            var users = Set<String>()
            for run in runs {
                #expect(await run.exitStatus(within: .seconds(60)) == 0, "\(run.stderr)")
                let results = Self.events("line_result", run.stdout)
                #expect(results.count == 20)
                for result in results {
                    if let range = result.range(of: "sip:") { users.insert(String(result[range.lowerBound...].prefix(16))) }
                }
                outputs += run.stdout
            }
            #expect(users.count == 60, "each line in exactly one shard")
            let (status, merged, err) = try await ToolProcess.run("astra-register", ["--merge", "-", "--json"],
                                                                  stdin: outputs)
            #expect(status == 0, "\(err)")
            let summary = try #require(Self.events("load_summary", merged).first)
            #expect(Self.field("shards", summary) == 3 && Self.field("registered", summary) == 60, "\(summary)")
            #expect(Self.field("connections", summary) == 60 && summary.contains("\"latency_ms\":{\"p50\""))

            for bad in ["3/3", "-1/2", "1/0", "x", "0/10001"] {
                let (code, _, message) = try await ToolProcess.run(
                    "astra-register", ["--load", "-", "--shard", bad], stdin: input)
                #expect(code == 64 && message.contains("--shard"), "\(bad): \(message)")
            }
            let (code, _, message) = try await ToolProcess.run("astra-register", ["--merge", "-"], stdin: "{}\n")
            #expect(code == 64 && message.contains("no load_summary"), "\(message)")
        }
    }
}

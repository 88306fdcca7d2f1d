import AstraTestSupport
import Foundation
import Glibc
import Testing
import ToolSupport

@testable import SIPTransport

extension KamailioPeer {
    /// astra-register's load mode obeys its user: `--timeout` per line, `--run-timeout` for the
    /// run, SIGINT (stop new work, unregister, summary so far), `--rate`, `--duration`, and
    /// progress as JSON events when stderr is not a terminal.
    @Suite struct LoadModeRunControlTests {
        static func lines(_ count: Int, server: String, transport: String = "udp", users: ClosedRange<Int> = 1070...1079)
            -> String
        {
            (0..<count).map { index in
                let user = users.lowerBound + index % users.count
                return "{\"v\":1,\"user\":\"\(user)\",\"password\":\"astra\(user)\",\"domain\":\"127.0.0.1\","
                    + "\"server\":\"\(server)\",\"transport\":\"\(transport)\"}"
            }.joined(separator: "\n")
        }

        static func events(_ name: String, _ out: String) -> [String] {
            out.split(separator: "\n").map(String.init).filter { $0.contains("\"event\":\"\(name)\"") }
        }

        /// A UDP port that takes datagrams and never answers (a silent registrar).
        final class SilentUDPPort {
            let fd: Int32
            let port: UInt16
            init() throws {
                let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
                guard let bound = TestPorts.bindAnyLoopbackPort(fd) else {
                    close(fd)
                    throw POSIXError(.EADDRINUSE)
                }
                self.fd = fd
                port = bound
            }
            deinit { close(fd) }
        }

        /// Five lines, a silent server, `--timeout 2`: every line fails at 2 s (not at Timer F's
        /// 32 s), exit 3; `--run-timeout` cuts a longer per-line bound short, summary so far.
        @Test func aSilentServerFailsEachLineAtItsTimeoutAndTheRunAtItsBound() async throws {
            let silent = try SilentUDPPort()
            let clock = ContinuousClock()
            var start = clock.now
            let (status, out, err) = try await ToolProcess.run(
                "astra-register", ["--load", "-", "--concurrency", "5", "--timeout", "2"],
                stdin: Self.lines(5, server: "127.0.0.1:\(silent.port)"), timeout: .seconds(20))
            let took = clock.now - start
            #expect(status == 3, "\(err)")
            #expect(took >= .seconds(2) && took < .seconds(6), "\(took)")
            let results = Self.events("line_result", out)
            #expect(results.count == 5 && results.allSatisfy { $0.contains("timeout") }, "\(out)")
            #expect(Self.events("load_summary", out).first?.contains("\"failed\":5") == true)

            start = clock.now
            let (bounded, boundedOut, boundedErr) = try await ToolProcess.run(
                "astra-register", ["--load", "-", "--concurrency", "2", "--timeout", "30", "--run-timeout", "1.5"],
                stdin: Self.lines(10, server: "127.0.0.1:\(silent.port)"), timeout: .seconds(20))
            #expect(bounded == 3, "\(boundedErr)")
            #expect(clock.now - start < .seconds(5))
            let summary = try #require(Self.events("load_summary", boundedOut).first)
            #expect(summary.contains("\"stopped\":\"run_timeout\"") && summary.contains("\"abandoned\":2"), "\(summary)")
            #expect(summary.contains("\"not_started\":8"), "\(summary)")
            #expect(boundedErr.contains("run timeout"), "\(boundedErr)")
        }

        /// `--rate 20/s` against Kamailio, SIGINT after the first registrations: no new line
        /// starts, what registered is unregistered, the summary so far comes out, exit 0.
        @Test func rateIsHonouredAndSIGINTStopsWithASummarySoFar() async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            let process = try ToolProcess(
                "astra-register", ["--load", "-", "--concurrency", "5", "--rate", "20/s"],
                stdin: Self.lines(200, server: "127.0.0.1:\(server.sipPort)"))
            #expect(await process.waitFor(.seconds(20)) { Self.events("line_result", process.stdout).count >= 30 })
            process.signal(SIGINT)
            let clock = ContinuousClock()
            let signalled = clock.now
            #expect(await process.exitStatus(within: .seconds(10)) == 0, "\(process.stderr)")
            #expect(clock.now - signalled < .seconds(5))
            let out = process.stdout
            let summary = try #require(Self.events("load_summary", out).first, "\(out.suffix(500))")
            let registered = Self.events("line_result", out).filter { $0.contains("\"registered\":true") }.count
            #expect(summary.contains("\"stopped\":\"signal\"") && summary.contains("\"registered\":\(registered)"))
            #expect(!summary.contains("\"not_started\":0"), "\(summary)")
            // 20 per second: the run took at least (registered - 1) / 20 s before the signal.
            let wall = Double(summary.split(separator: "\"wall_ms\":").last?.prefix { "0123456789.".contains($0) } ?? "")
            #expect((wall ?? 0) >= Double(registered - 1) / 20 * 1000 - 50, "\(summary)")
            #expect(!Self.events("progress", out).isEmpty, "progress events when stderr is not a terminal")
        }

        /// Over TCP (the endpoint path, not the UDP loop) with stderr a terminal: progress is one
        /// line rewritten in place (no `progress` events on stdout); SIGTERM stops like SIGINT,
        /// and every line that registered is unregistered (a REGISTER with `expires=0` under its
        /// Call-ID is in the `--sip-trace-file`).
        @Test func onATerminalProgressIsOneLineAndSIGTERMUnregistersOverTCP() async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            let terminal = try InteractiveCallTests.PseudoTerminal()
            let base = NSTemporaryDirectory() + "astra-load-\(UUID().uuidString)"
            defer { for suffix in [".in", ".out", ".jsonl"] { try? FileManager.default.removeItem(atPath: base + suffix) } }
            try Self.lines(200, server: "127.0.0.1:\(server.port(for: .tcp))", transport: "tcp", users: 1083...1089)
                .write(toFile: base + ".in", atomically: true, encoding: .utf8)
            let pid = try ProcessSpawn.spawn(
                [ToolProcess.binDirectory + "/astra-register", "--load", base + ".in", "--concurrency", "4",
                 "--rate", "20/s", "--timeout", "30", "--sip-trace-file", base + ".jsonl"],
                environment: ProcessInfo.processInfo.environment, stdin: .null,
                stdout: .file(base + ".out", truncate: false), stderr: .file(terminal.slavePath, truncate: false))
            var raw: Int32 = 0
            defer { if waitpid(pid, &raw, WNOHANG) == 0 { kill(pid, SIGKILL); waitpid(pid, &raw, 0) } }
            func output() -> String { (try? String(contentsOfFile: base + ".out", encoding: .utf8)) ?? "" }
            // Generous: 20 lines take one second at 20/s, but a busy CPU beside the run may hold
            // the connect or the first answers back for seconds.
            let going = await eventually(timeout: .seconds(60), every: .milliseconds(50)) {
                terminal.drain()
                return Self.events("line_result", output()).count >= 20 && terminal.text.contains("/200 done")
            }
            try #require(going, "stdout: \(output().suffix(1500)) terminal: \(terminal.text.suffix(1500))")
            kill(pid, SIGTERM)
            let ended = await eventually(timeout: .seconds(15), every: .milliseconds(50)) {
                terminal.drain()
                return waitpid(pid, &raw, WNOHANG) == pid
            }
            try #require(ended, "astra-register did not exit after SIGTERM: \(terminal.text.suffix(300))")
            terminal.drain()
            #expect(ProcessSpawn.exitStatus(raw) == 0, "\(terminal.text.suffix(500))")
            #expect(terminal.text.contains("\r\u{1B}[Kastra-register: "), "\(terminal.text.suffix(300))")
            #expect(terminal.text.contains(" in flight"), "\(terminal.text.suffix(300))")
            #expect(terminal.text.contains("interrupted: summary of the lines so far"))
            let out = output()
            #expect(Self.events("progress", out).isEmpty, "no progress events when stderr is a terminal")
            let summary = try #require(Self.events("load_summary", out).first, "\(out.suffix(500))")
            let registered = Self.events("line_result", out).filter { $0.contains("\"registered\":true") }.count
            #expect(summary.contains("\"stopped\":\"signal\"") && summary.contains("\"registered\":\(registered)"))
            #expect(registered >= 20 && registered < 200, "\(summary)")
            var unregistered: Set<String> = []
            for line in try String(contentsOfFile: base + ".jsonl", encoding: .utf8).split(separator: "\n") {
                guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                      object["direction"] as? String == "sent", let message = object["message"] as? String,
                      message.hasPrefix("REGISTER "), message.contains(";expires=0")
                else { continue }
                let callID = message.split(separator: "\r\n").first { $0.lowercased().hasPrefix("call-id:") }
                if let callID { unregistered.insert(String(callID)) }
            }
            #expect(unregistered.count == registered, "\(unregistered.count) unregistered of \(registered) registered")
        }

        /// `--duration 2 --rate 10/s` cycles through three lines: about 20 registrations (a
        /// registered line refreshes), then the run stops by itself and unregisters.
        @Test func durationKeepsRegisteringAtTheRateThenStops() async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            let (status, out, err) = try await ToolProcess.run(
                "astra-register", ["--load", "-", "--concurrency", "3", "--rate", "10", "--duration", "2"],
                stdin: Self.lines(3, server: "127.0.0.1:\(server.sipPort)", users: 1080...1082),
                timeout: .seconds(20))
            #expect(status == 0, "\(err)")
            let registered = Self.events("line_result", out).filter { $0.contains("\"registered\":true") }.count
            #expect(registered >= 15 && registered <= 22, "\(registered) registrations in 2 s at 10/s")
            let summary = try #require(Self.events("load_summary", out).first)
            #expect(summary.contains("\"stopped\":\"duration\"") && summary.contains("\"failed\":0"), "\(summary)")
        }
    }
}

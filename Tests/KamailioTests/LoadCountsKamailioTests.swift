import AstraTestSupport
import Foundation
import Glibc
import Testing
import ToolSupport

@testable import SIPTransport

extension KamailioPeer {
    /// What a load run reports agrees with itself, against a real Kamailio: the last progress,
    /// the summary and the JSON carry one set of counts (planned, started, done, registered,
    /// failed, abandoned, not started); on a terminal the line results go above the progress
    /// line, never glued to it; a `--keep` run stopped by SIGINT says `unregistered`.
    @Suite struct LoadCountsKamailioTests {
        typealias L = LoadModeRunControlTests

        static func object(_ line: String) -> [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
        }

        /// `--duration 30 --rate 20/s`, SIGINT after the first progress: 600 planned, the
        /// unstarted ones counted (not 0), and the last `progress` event says what the summary says.
        @Test func aStoppedDurationRunCountsWhatItNeverStarted() async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            let process = try ToolProcess(
                "astra-register", ["--load", "-", "--concurrency", "4", "--rate", "20/s", "--duration", "30", "--json"],
                stdin: L.lines(3, server: "127.0.0.1:\(server.sipPort)", users: 1080...1082))
            #expect(await process.waitFor(.seconds(20)) { !process.events("progress").isEmpty }, "\(process.stderr)")
            process.signal(SIGINT)
            #expect(await process.exitStatus(within: .seconds(15)) == 0, "\(process.stderr)")
            let summaryLine = try #require(process.events("load_summary").first, "\(process.stdout.suffix(500))")
            let summary = Self.object(summaryLine)
            func int(_ object: [String: Any], _ key: String) -> Int? { (object[key] as? NSNumber)?.intValue }
            #expect(int(summary, "lines") == 3 && int(summary, "planned") == 600, "\(summaryLine)")
            let started = try #require(int(summary, "started"), "\(summaryLine)")
            #expect(int(summary, "not_started") == 600 - started && started < 600, "\(summaryLine)")
            #expect(started == (int(summary, "done") ?? -1) + (int(summary, "abandoned") ?? -1), "\(summaryLine)")
            let registered = process.events("line_result").filter { $0.contains("\"registered\":true") }.count
            #expect(int(summary, "registered") == registered)
            let last = Self.object(try #require(process.events("progress").last))
            for key in ["planned", "started", "done", "registered", "failed", "abandoned", "not_started"] {
                #expect(int(last, key) == int(summary, key), "\(key): progress \(last) summary \(summaryLine)")
            }
        }

        /// stdout and stderr on one terminal (text mode): each `✔` line starts a line of its
        /// own (the progress line is erased first), and the final progress line's counts are
        /// the summary's.
        @Test func onATerminalResultsGoAboveTheProgressLine() async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            let terminal = try InteractiveCallTests.PseudoTerminal()
            let input = NSTemporaryDirectory() + "astra-load-tty-\(UUID().uuidString).in"
            defer { try? FileManager.default.removeItem(atPath: input) }
            try L.lines(400, server: "127.0.0.1:\(server.sipPort)").write(toFile: input, atomically: true, encoding: .utf8)
            let pid = try ProcessSpawn.spawn(
                [ToolProcess.binDirectory + "/astra-register", "--load", input, "--concurrency", "4", "--rate", "40/s"],
                environment: ProcessInfo.processInfo.environment, stdin: .null,
                stdout: .file(terminal.slavePath, truncate: false), stderr: .file(terminal.slavePath, truncate: false))
            var raw: Int32 = 0
            defer { if waitpid(pid, &raw, WNOHANG) == 0 { kill(pid, SIGKILL); waitpid(pid, &raw, 0) } }
            let going = await eventually(timeout: .seconds(20), every: .milliseconds(50)) {
                terminal.drain()
                return terminal.text.components(separatedBy: "/400 done").count >= 3
                    && terminal.text.components(separatedBy: "✔").count > 40
            }
            try #require(going, "\(terminal.text.suffix(400))")
            kill(pid, SIGINT)
            let ended = await eventually(timeout: .seconds(15), every: .milliseconds(50)) {
                terminal.drain()
                return waitpid(pid, &raw, WNOHANG) == pid
            }
            try #require(ended, "astra-register did not exit after SIGINT: \(terminal.text.suffix(300))")
            terminal.drain()
            let screen = terminal.text
            #expect(ProcessSpawn.exitStatus(raw) == 0, "\(screen.suffix(500))")
            // The progress line is drawn after an erase (`ESC [ K`) and erased before results
            // are written: no piece of the screen from a progress line to the next erase holds one.
            let segments = screen.components(separatedBy: "\u{1B}[K")
            for segment in segments where segment.hasPrefix("astra-register: ") {
                #expect(!segment.contains("✔"), "a result glued to the progress line: \(segment.prefix(160).debugDescription)")
            }
            let summary = try #require(screen.split(separator: "\n").last { $0.contains("400 lines, ") },
                                       "\(screen.suffix(500))")
            // The last progress line `86/400 done: 86 registered, 0 failed; …` and the summary
            // `400 lines, 90 started, 86 done: 86 registered, 0 failed, …` agree.
            let progress = segments.filter { $0.hasPrefix("astra-register: ") && $0.contains("/400 done: ") }
            let last = try #require(progress.last, "\(screen.suffix(300))")
            let counts = last.dropFirst("astra-register: ".count).prefix { $0 != ";" }
            let done = counts.prefix { $0 != "/" }
            let words = counts.drop { $0 != ":" }  // `: 86 registered, 0 failed`
            #expect(summary.contains(" \(done) done\(words)"), "\(last.prefix(90)) vs \(summary)")
            #expect(summary.contains(" not started (signal)"), "\(summary)")
        }

        /// `--keep`, then SIGINT: the binding is removed and the run says so with an
        /// `unregistered` event before its `result`.
        @Test func keepThenSIGINTSaysUnregistered() async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            let process = try ToolProcess(
                "astra-register", ["--keep", "--json", "--password", "astra1071", "--server", "127.0.0.1:\(server.sipPort)",
                                   "--transport", "udp", "sip:1071@127.0.0.1"])
            #expect(await process.waitFor(.seconds(10)) { !process.events("registered").isEmpty }, "\(process.stderr)")
            process.signal(SIGINT)
            #expect(await process.exitStatus(within: .seconds(10)) == 0, "\(process.stderr)")
            #expect(process.events("unregistered").count == 1, "\(process.stdout)")
            #expect(process.events("result").first?.contains("\"unregistered\":true") == true, "\(process.stdout)")
            let events = process.stdout.split(separator: "\n")
            let unregisteredAt = events.firstIndex { $0.contains("\"event\":\"unregistered\"") }
            let resultAt = events.firstIndex { $0.contains("\"event\":\"result\"") }
            #expect(unregisteredAt != nil && resultAt != nil && unregisteredAt! < resultAt!)
        }
    }
}

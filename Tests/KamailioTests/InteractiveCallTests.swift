import AstraTestSupport
import CLinux
import Foundation
import Testing
import ToolSupport

@testable import SIPTransport

extension KamailioPeer {
    /// issue 19 "Must show": astra-call on a terminal (a pseudo-terminal here, as a user's
    /// shell would give it). Typed `12#` reaches the far end as RFC 4733 DTMF, `s` prints the
    /// statistics, `h` hangs up; the status line runs on the terminal, and the terminal's
    /// settings are what they were once the tool is gone.
    @Suite struct InteractiveCallTests {
        typealias H = CallToolHarness

        /// A pseudo-terminal pair: the test holds the master (the keyboard and the screen), the
        /// tool gets the slave as standard input and standard error.
        final class PseudoTerminal {
            let master: Int32
            let slavePath: String
            let slave: Int32
            private(set) var screen: [UInt8] = []

            init() throws {
                var name = [CChar](repeating: 0, count: 64)
                master = astra_open_pty(&name, name.count)
                guard master >= 0 else {
                    throw ToolProcessError(message: "no pseudo-terminal: \(String(cString: strerror(errno)))")
                }
                slavePath = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                slave = open(slavePath, O_RDWR | O_NOCTTY)
                guard slave >= 0 else { throw ToolProcessError(message: "cannot open \(slavePath)") }
            }

            func type(_ text: String) { _ = text.utf8CString.dropLast().withUnsafeBytes { write(master, $0.baseAddress, $0.count) } }

            /// Reads what the tool printed so far (never blocks).
            func drain() {
                var entry = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
                var buffer = [UInt8](repeating: 0, count: 4096)
                while poll(&entry, 1, 0) > 0, entry.revents & Int16(POLLIN) != 0 {
                    let n = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
                    if n <= 0 { return }
                    screen += buffer[0..<n]
                }
            }

            var text: String { String(decoding: screen, as: UTF8.self) }

            /// ICANON and ECHO: a terminal a shell can use.
            var isCooked: Bool {
                var settings = termios()
                tcgetattr(slave, &settings)
                return settings.c_lflag & tcflag_t(ICANON) != 0 && settings.c_lflag & tcflag_t(ECHO) != 0
            }

            deinit {
                close(slave)
                close(master)
            }
        }

        @Test func typedDigitsAreDTMFAndHHangsUp() async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            let callee = try await H.callee(server, .udp, user: "1038", [])
            let terminal = try PseudoTerminal()
            #expect(terminal.isCooked)
            astra_set_terminal_size(terminal.slave, 24, 80)
            let stdoutPath = NSTemporaryDirectory() + "astra-interactive-\(UUID().uuidString).out"
            defer { try? FileManager.default.removeItem(atPath: stdoutPath) }
            let arguments = ["dial"] + H.line(server, .wss, user: "1037") + ["sip:1038@127.0.0.1"]
            let pid = try ProcessSpawn.spawn(
                [ToolProcess.binDirectory + "/astra-call"] + arguments, environment: ProcessInfo.processInfo.environment,
                stdin: .file(terminal.slavePath, truncate: false), stdout: .file(stdoutPath, truncate: false),
                stderr: .file(terminal.slavePath, truncate: false))
            var raw: Int32 = 0
            defer { if waitpid(pid, &raw, WNOHANG) == 0 { kill(pid, SIGKILL); waitpid(pid, &raw, 0) } }
            func caller() -> String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
            let answered = await eventually(timeout: .seconds(15), every: .milliseconds(50)) {
                terminal.drain()
                return caller().contains("\"event\":\"answered\"")
            }
            try #require(answered, "caller never answered: \(caller()) \(terminal.text)")
            #expect(!terminal.isCooked, "single-key mode while the call runs")
            let status = await eventually(timeout: .seconds(5), every: .milliseconds(50)) {
                terminal.drain()
                return terminal.text.contains("● in call 0:0")
            }
            #expect(status, "a status line once answered: \(terminal.text)")
            // The status line fits the terminal's width (80 here: one column spare), and on
            // hold it stops offering `H hold`; on a wider terminal it offers `H resume`.
            func statusLines() -> [String] {
                terminal.text.components(separatedBy: "\u{1B}[K").compactMap { segment in
                    let line = segment.prefix { $0 != "\r" && $0 != "\n" }
                    return line.hasPrefix("● ") || line.hasPrefix("◌ ") || line.hasPrefix("○ ") ? String(line) : nil
                }
            }
            terminal.type("H")
            let held = await eventually(timeout: .seconds(10), every: .milliseconds(50)) {
                terminal.drain()
                return statusLines().contains { $0.hasPrefix("● on hold ") }
            }
            #expect(held, "on hold after H: \(terminal.text.suffix(300))")
            #expect(statusLines().allSatisfy { $0.count <= 79 }, "\(statusLines().map(\.count).max() ?? 0) columns")
            #expect(!statusLines().contains { $0.hasPrefix("● on hold ") && $0.contains("H hold") })
            astra_set_terminal_size(terminal.slave, 40, 120)
            let resume = await eventually(timeout: .seconds(5), every: .milliseconds(50)) {
                terminal.drain()
                return statusLines().contains { $0.hasPrefix("● on hold ") && $0.contains("H resume") }
            }
            #expect(resume, "\(statusLines().suffix(2))")
            terminal.type("H")
            let resumed = await eventually(timeout: .seconds(10), every: .milliseconds(50)) {
                terminal.drain()
                return statusLines().last?.hasPrefix("● in call ") == true
            }
            #expect(resumed, "in call again after H: \(statusLines().suffix(2))")
            #expect(statusLines().allSatisfy { $0.count <= 119 } && !statusLines().contains { $0.contains("loss 50.0") })
            terminal.type("12#")
            let heard = await eventually(timeout: .seconds(10), every: .milliseconds(50)) {
                terminal.drain()
                return callee.events("dtmf").compactMap { H.field("digit", in: $0) }.joined() == "12#"
            }
            #expect(heard, "the far end's DTMF events: \(callee.events("dtmf"))")
            terminal.type("s")
            let stats = await eventually(timeout: .seconds(5), every: .milliseconds(50)) {
                terminal.drain()
                return caller().contains("\"event\":\"stats\"")
            }
            #expect(stats)
            terminal.type("h")
            let ended = await eventually(timeout: .seconds(15), every: .milliseconds(50)) {
                terminal.drain()
                return waitpid(pid, &raw, WNOHANG) == pid
            }
            try #require(ended, "astra-call did not exit after h: \(caller())")
            #expect(ProcessSpawn.exitStatus(raw) == 0)
            #expect(await callee.exitStatus(within: .seconds(10)) == 0, "callee: \(callee.stderr)")
            let output = caller()
            #expect(output.components(separatedBy: "\"event\":\"dtmf_sent\"").count - 1 == 3)
            #expect(H.field("reason", in: output.components(separatedBy: "\n").first { $0.contains("\"ended\"") } ?? "")
                == "local_hangup")
            #expect(callee.events("ended").first.flatMap { H.field("reason", in: $0) } == "remote_hangup")
            terminal.drain()
            #expect(terminal.text.contains("PCMA · ↑") && terminal.text.contains("h hang up"), "\(terminal.text)")
            #expect(terminal.isCooked, "the terminal is restored")
        }

        /// The terminal comes back on the signal paths too: SIGTERM is the graceful hang-up
        /// (exit 0), SIGQUIT the default action after the restore (128 + 3).
        @Test(arguments: [(SIGTERM, Int32(0)), (SIGQUIT, Int32(128 + SIGQUIT))])
        func signalsRestoreTheTerminal(signal: Int32, status: Int32) async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            // A caller killed by SIGQUIT sends no BYE: the callee ends on its RTP timeout.
            let callee = try await H.callee(server, .udp, user: "1040", ["--rtp-timeout", "2"])
            let terminal = try PseudoTerminal()
            let stdoutPath = NSTemporaryDirectory() + "astra-interactive-\(UUID().uuidString).out"
            defer { try? FileManager.default.removeItem(atPath: stdoutPath) }
            let pid = try ProcessSpawn.spawn(
                [ToolProcess.binDirectory + "/astra-call", "dial"] + H.line(server, .wss, user: "1039")
                    + ["sip:1040@127.0.0.1"],
                environment: ProcessInfo.processInfo.environment, stdin: .file(terminal.slavePath, truncate: false),
                stdout: .file(stdoutPath, truncate: false), stderr: .file(terminal.slavePath, truncate: false))
            var raw: Int32 = 0
            defer { if waitpid(pid, &raw, WNOHANG) == 0 { kill(pid, SIGKILL); waitpid(pid, &raw, 0) } }
            let answered = await eventually(timeout: .seconds(15), every: .milliseconds(50)) {
                terminal.drain()
                return ((try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "").contains("\"answered\"")
            }
            try #require(answered)
            #expect(!terminal.isCooked)
            kill(pid, signal)
            let ended = await eventually(timeout: .seconds(15), every: .milliseconds(50)) {
                terminal.drain()
                return waitpid(pid, &raw, WNOHANG) == pid
            }
            try #require(ended)
            #expect(ProcessSpawn.exitStatus(raw) == status)
            #expect(terminal.isCooked, "restored after signal \(signal)")
            _ = await callee.exitStatus(within: .seconds(15))
        }

        /// `--interactive` without a terminal is a usage error, not a silent no-op.
        @Test func interactiveNeedsATerminal() async throws {
            let (status, _, err) = try await ToolProcess.run(
                "astra-call", ["dial", "--interactive", "--user", "1", "--domain", "127.0.0.1", "sip:2@127.0.0.1"])
            #expect(status == 64)
            #expect(err == "astra-call: --interactive needs a terminal on standard input\n")
        }
    }
}

import AstraTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `astra-pushsim … --client-cmd` with clients that break the protocol in the ways a first
/// client in another language does: two answers per callback, a hang, an exit while a child of
/// it keeps the socket — through the built binary, with what a user reads on stdout and stderr.
@Suite struct PushSimClientFaultToolTests {
    static let tool = BuiltTool(name: "astra-pushsim")
    static let hello = #"echo '{"hello":"astra-pushsim-client","version":1,"name":"myapp"}'"#

    /// A client that forwards every callback to the shipped `astra-pushsim client` and its answer
    /// back, with one fault: `double-push` writes the answer to every push twice (in one write);
    /// `hang-at NAME` stops answering (still reading) from the reset of scenario NAME on.
    static let wrapper = """
        import subprocess, sys
        mode, arg, inner = sys.argv[1], sys.argv[2], sys.argv[3:]
        p = subprocess.Popen(inner, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        hanging = False
        for line in sys.stdin:
            if mode == "hang-at" and '"callback":"reset"' in line and '"scenario":"%s"' % arg in line:
                hanging = True
            if hanging:
                continue
            p.stdin.write(line)
            p.stdin.flush()
            answer = p.stdout.readline()
            twice = mode == "double-push" and '"callback":"push"' in line
            sys.stdout.write(answer + answer if twice else answer)
            sys.stdout.flush()
        """

    static func wrapperCommand(_ mode: String, _ arg: String, bin: String) throws -> String {
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("pushsim-wrapper-\(getpid()).py")
        try wrapper.write(to: script, atomically: true, encoding: .utf8)
        return "python3 \(script.path) \(mode) \(arg) \(bin) client"
    }

    /// Must show: a client that writes two answer lines to a callback does not pass with later
    /// answers shifted by one: the line nobody asked for is a named CLIENT violation, exit 1.
    @Test func twoAnswersToOneCallbackAreAProtocolError() async throws {
        let bin = try #require(Self.tool.executable()?.path)
        let command = try Self.wrapperCommand("double-push", "-", bin: bin)
        for subcommand in [["run", "killed"], ["check", "--delivery", "ideal"]] {
            // A generous answer bound: the wrapper starts python and a debug binary, slow on a busy CPU.
            let result = try #require(
                await Self.tool.run(subcommand + ["--client-cmd", command, "--client-timeout-ms", "60000"]))
            #expect(result.status == 1, "\(subcommand): \(result.stderr)")
            #expect(result.stdout.contains(#""client_unsolicited_answer""#), "\(subcommand)")
            #expect(!result.stdout.contains(#""ok":true"#), "\(subcommand): \(result.stdout)")
            #expect(result.stderr.contains("a second answer to push, which nobody asked for"), "\(result.stderr)")
        }
    }

    /// Must show: `check` writes each scenario's line when it is done: with a client that hangs
    /// at the fourth scenario, the first three lines are there while the tool still waits; a
    /// `check` stopped by a signal then leaves them.
    @Test func checkLinesAppearWhileTheClientHangs() async throws {
        let bin = try #require(Self.tool.executable())
        let command = try Self.wrapperCommand("hang-at", "locked", bin: bin.path)
        let check = try ChildProcess.startConversation(
            bin, ["check", "--delivery", "ideal", "--client-cmd", command, "--client-timeout-ms", "120000"])
        var lines: [String] = []
        for _ in 0..<3 {
            guard let line = await check.readLine(within: .seconds(60)) else { break }
            lines.append(line)
        }
        #expect(lines.count == 3, "\(lines) \(check.stderrSoFar)")
        #expect(lines.allSatisfy { $0.hasPrefix(#"{"event":"scenario""#) }, "\(lines)")
        #expect(check.exitStatus == nil, "the client hangs: check must still be waiting")
        check.signal(SIGTERM)
        let result = try await check.result()
        #expect(result.status != 0)
    }

    /// Must show: a client that exits while a child of it still holds its stdout is "exited"
    /// at once, not "no answer" after the whole timeout; the child goes with its group.
    @Test func clientThatExitsWhileItsChildHoldsTheSocketExited() async throws {
        let command = "read h; \(Self.hello); read r; echo '{\"ops\":[]}'; sleep 300 & echo \"child $!\" >&2; exit 3"
        let start = ContinuousClock.now
        let result = try #require(
            await Self.tool.run(["run", "killed", "--client-cmd", command, "--client-timeout-ms", "240000"]))
        // Waiting for the timeout (240 s) or for the child's pipe (300 s) would take minutes; a
        // busy CPU can make the run itself take 40 s.
        #expect(start.duration(to: .now) < .seconds(150), "waited for the timeout")
        #expect(result.status == 1)
        #expect(result.stderr.contains("exited with status 3 instead of answering launched"), "\(result.stderr)")
        #expect(result.stdout.contains(#""kind":"client_exited""#))
        let pid = try #require(result.stderr.firstMatch(of: /child (\d+)/).flatMap { Int32($0.1) })
        let gone = await eventually(timeout: .seconds(20)) {
            let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
            return stat == nil || stat!.contains(") Z ")
        }
        #expect(gone, "the client's child \(pid) was not killed with its group")
    }

    /// Must show: after a client error `check` says where it stopped — not "broke CLIENT in 1 of
    /// 1", not a delivery model it never ran — in one stderr line that names the client once.
    @Test func checkStoppedByTheClientSaysWhere() async throws {
        let result = try #require(await Self.tool.run(["check", "--client-cmd", "read h; \(Self.hello); exit 2"]))
        #expect(result.status == 1)
        let verdict = try #require(result.stdout.split(separator: "\n").last.map(String.init))
        #expect(verdict.contains(#""delivery":["ideal"],"scenarios":1,"planned":54"#), "\(verdict)")
        #expect(verdict.contains(#""stopped_in":"killed""#), "\(verdict)")
        #expect(!result.stderr.contains("broke CLIENT"), "\(result.stderr)")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stderr)")
        #expect(lines.first?.contains("check stopped in killed, scenario 1 of 54") == true, "\(result.stderr)")
        #expect(result.stderr.components(separatedBy: "client ").count == 2, "the client is named once: \(result.stderr)")
        #expect(result.stderr.contains("exited with status 2 instead of answering reset"))
    }

    /// Must show: a violation names the CallKit call by the client's own UUID string (the one
    /// it reported), not the emulator's integer for it.
    @Test func violationsNameTheClientsOwnUUID() async throws {
        let command = """
            read h; \(Self.hello); while read l; do case "$l" in \
            *'"callback":"push"'*) echo '{"ops":[{"op":"ack","push_id":0},{"op":"report","uuid":"6F1D2C3B-CAFE","push_id":0}]}';; \
            *) echo '{"ops":[]}';; esac; done
            """
        let result = try #require(await Self.tool.run(["run", "killed", "--client-cmd", command]))
        #expect(result.status == 1, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        let violations = lines.filter { $0.contains(#""event":"violation""#) && $0.contains(#""uuid":"#) }
        #expect(!violations.isEmpty, "\(result.stdout)")
        for line in violations { #expect(line.contains(#""uuid":"6F1D2C3B-CAFE""#), "\(line)") }
        #expect(lines.contains { $0.contains(#""event":"callkit_report""#) && $0.contains(#""uuid":"6F1D2C3B-CAFE""#) })
    }
}

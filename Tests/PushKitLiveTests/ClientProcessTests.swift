import Foundation
import PushKitEmu
import PushSimCommand
import Testing

@testable import PushKitLive

/// `--client-cmd` over a real process boundary: a client that answers, dies, hangs, writes junk,
/// floods, speaks another version, or cannot start. Each ends in one clear fault (a CLIENT
/// violation, or an error before any scenario), within the answer bound — never a hang.
@Suite("Client process") struct ClientProcessTests {
    /// A shell client: says hello, then runs `then` (with every further line on its stdin).
    static func client(_ then: String, hello: String = #"{"hello":"astra-pushsim-client","version":1,"name":"sh"}"#)
        -> String
    {
        "read hello; echo '\(hello)'; \(then)"
    }

    /// Answers every line with no ops: the smallest valid client.
    static let idle = client(#"while read line; do echo '{"ops":[]}'; done"#)

    static func check(_ command: String, timeoutMs: Int64 = 2_000) throws -> (PushSimOutput, Duration) {
        let session = try ClientSession(command: command, timeoutMs: timeoutMs, lifetime: .perRun)
        defer { session.close() }
        let start = ContinuousClock.now
        let out = PushSimCommand.check(
            source: ClientProcessSource(session: session), seed: 1, format: .json, deliveries: [.ideal])
        return (out, start.duration(to: .now))
    }

    @Test func anIdleClientIsJudgedByTheRules() throws {
        let (out, _) = try Self.check(Self.idle)
        #expect(out.exitCode == 1)
        let verdict = out.stdout.last ?? ""
        #expect(verdict.contains(#""policy":"sh""#))
        #expect(verdict.contains(#""R1""#) && !verdict.contains("CLIENT"))
        #expect(out.stdout.count == BuiltInScenarios.all.count + 1)
    }

    /// Must show: the client process dies, hangs or writes junk → a CLIENT violation naming what
    /// happened, exit 1, the check stops at once (no scenario waits again).
    @Test(arguments: [
        ("exit 3", "client_exited", "exited with status 3"),
        ("read line; kill -9 $$", "client_exited", "killed by signal 9"),
        ("read line; sleep 30", "client_no_answer", "no answer to reset within 1500 ms"),
        ("read line; echo 'garbage'", "client_bad_answer", "answer to reset: not JSON"),
        (
            #"read line; echo '{"ops":[]}'; read line; echo '{"ops":[{"op":"teleport"}]}'"#, "client_bad_answer",
            "unknown op 'teleport'"
        ),
        ("read line; head -c 200000 /dev/zero", "client_bad_answer", "longer than 65536 bytes"),
    ])
    func brokenClientIsAClearViolation(_ then: String, _ kind: String, _ says: String) throws {
        let (out, took) = try Self.check(Self.client(then), timeoutMs: 1_500)
        #expect(out.exitCode == 1)
        #expect(out.stdout.count == 2, "stops after the first scenario")
        #expect(out.stdout[0].contains(#""rules":["CLIENT"]"#))
        #expect(out.stdout[0].contains(#""kinds":["\#(kind)"]"#))
        #expect(out.stdout[1].contains(says), "\(out.stdout[1])")
        #expect(out.stderr.contains { $0.contains(says) })
        #expect(out.stderr.allSatisfy { !$0.contains("\n") })
        #expect(took < .seconds(20), "the hung client sleeps 30 s")
    }

    /// A command that cannot start or does not speak the protocol is refused before any scenario
    /// (the tool's exit 64), with the reason.
    @Test(arguments: [
        ("/nonexistent/astra-client", "exited with status 127"),
        ("true", "exited with status 0"),
        (client("", hello: #"{"hello":"astra-pushsim-client","version":7}"#), "speaks protocol version 7"),
        ("read x; echo hi", "not JSON"),
        // A client that never says hello is killed, not left sleeping (`sleep 29.7`: a duration
        // no other test uses, so it can be looked for in /proc).
        ("sleep 29.7", "no answer to hello within 1500 ms"),
    ])
    func unusableCommandIsRefusedAtStart(_ command: String, _ says: String) {
        #expect {
            _ = try ClientSession(command: command, timeoutMs: 1_500, lifetime: .perRun)
        } throws: { error in
            (error as? ClientFault)?.detail.contains(says) == true
        }
        if command.hasPrefix("sleep") {
            #expect(Self.processes(withCommandLine: command.split(separator: " ").map(String.init)) == [])
        }
    }

    /// The pids whose command line is exactly `argv` (from /proc).
    static func processes(withCommandLine argv: [String]) -> [String] {
        let wanted = Array(argv.joined(separator: "\0").utf8) + [0]
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.filter { entry in
            entry.allSatisfy(\.isNumber)
                && FileManager.default.contents(atPath: "/proc/\(entry)/cmdline").map { Array($0) == wanted } == true
        }
    }

    /// Live lifetime: every launch is a new process; the app's end kills it; before the first
    /// launch there is none.
    @Test func perLaunchSessionStartsAFreshProcessEachLaunch() throws {
        let session = try ClientSession(command: Self.idle, timeoutMs: 2_000, lifetime: .perLaunch)
        defer { session.close() }
        #expect(session.pid == nil)
        session.begin(scenario: "killed", settings: EmulatorSettings())
        #expect(session.launch() == nil)
        let first = try #require(session.pid)
        #expect(kill(first, 0) == 0)
        session.processEnded()
        #expect(session.pid == nil)
        #expect(kill(first, 0) != 0, "the killed app's process is gone")
        #expect(session.launch() == nil)
        let second = try #require(session.pid)
        #expect(second != first)
        session.close()
        #expect(kill(second, 0) != 0)
    }
}

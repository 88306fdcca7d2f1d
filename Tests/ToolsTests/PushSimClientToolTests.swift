import Foundation
import Testing

/// `astra-pushsim … --client-cmd` through the built binary: the exit codes users and CI see.
@Suite struct PushSimClientToolTests {
    static let tool = BuiltTool(name: "astra-pushsim")

    /// The shipped client served over the protocol judges exactly like the in-process policy.
    @Test(arguments: ["correct", "naive"])
    func builtInClientProcessMatchesInProcess(_ policy: String) async throws {
        guard let bin = Self.tool.executable()?.path else { return }
        for scenario in ["killed", "cancel-after-ack", "reconnect", "sealed-tampered"] {
            for delivery in ["ideal", "field"] {
                let common = ["run", scenario, "--delivery", delivery, "--seed", "4"]
                let direct = try #require(await Self.tool.run(common + ["--policy", policy]))
                var remote = try #require(
                    await Self.tool.run(
                        common + ["--client-cmd", "\(bin) client --policy \(policy)", "--client-timeout-ms", "60000"]))
                // The client names its CallKit UUIDs ("0", "1": their decimal strings) and the
                // output shows the client's own strings; everything else is byte for byte.
                remote.stdout = remote.stdout.replacing(/"uuid":"(\d+)"/) { "\"uuid\":\($0.1)" }
                if scenario == "killed" { #expect(remote.stdout.contains(#""uuid":"#), "\(delivery)") }
                #expect(remote == direct, "\(scenario) \(delivery)")
            }
        }
        let check = try #require(
            await Self.tool.run(["check", "--client-cmd", "\(bin) client --policy \(policy)", "--client-timeout-ms", "60000"]))
        #expect(check.status == (policy == "correct" ? 0 : 1))
        if policy == "naive" { #expect(check.stderr.contains("broke R1, R2, R5, R6, GRANT")) }
    }

    /// Must show: a client that dies, hangs or writes junk → exit 1 with a CLIENT violation and a
    /// one-line reason; one that cannot start or speak the protocol → exit 64. Never a hang.
    @Test(arguments: [
        (#"read h; echo '{"hello":"astra-pushsim-client","version":1}'; exit 2"#, Int32(1), "exited with status 2"),
        (
            #"read h; echo '{"hello":"astra-pushsim-client","version":1}'; read r; sleep 120"#, 1,
            "no answer to reset within 3000 ms"
        ),
        (
            #"read h; echo '{"hello":"astra-pushsim-client","version":1}'; read r; echo '{"ops":[]}'; read c; echo '{"ops":[{"op":"ack","push_id":1e99}]}'"#,
            1, "number out of range"
        ),
        ("/nonexistent/client", 64, "--client-cmd /nonexistent/client: pid "),
        (#"read h; echo '{"hello":"astra-pushsim-client","version":2}'"#, 64, "speaks protocol version 2"),
    ])
    func brokenClientExitCodes(_ command: String, _ status: Int32, _ says: String) async throws {
        // The client's answers must come within the client timeout: 10 s where the case is not
        // the timeout itself (a loaded machine may take over a second to start `sh`), 3 s for
        // the client that hangs (its hello still has to come in time).
        let timeoutMs = says.hasPrefix("no answer") ? "3000" : "10000"
        for subcommand in [["check"], ["run", "killed"], ["fuzz", "--count", "50"]] {
            let start = ContinuousClock.now
            let result = try #require(
                await Self.tool.run(subcommand + ["--client-cmd", command, "--client-timeout-ms", timeoutMs]))
            #expect(result.status == status, "\(subcommand) \(result.stderr)")
            #expect(result.stderr.contains(says), "\(subcommand): \(result.stderr)")
            // The client's own stderr passes through (sh's "not found"); ours is the last line.
            #expect(result.stderr.split(separator: "\n").last?.hasPrefix("astra-pushsim: ") == true)
            if status == 1 { #expect(result.stdout.contains(#""rules":["CLIENT"]"#)) }
            if status == 64 { #expect(result.stdout.isEmpty) }
            // Generous: the parallel test phase can hold a finished child's continuation for
            // seconds; a hang would last the client's 120 s sleep.
            #expect(start.duration(to: .now) < .seconds(60))
        }
    }

    /// A bad delivery spec or client bound is a usage error.
    @Test(arguments: [
        (["run", "killed", "--apns-delay", "lognormal:9:3"], "lognormal:9:3: needs 0 < median ≤ p95"),
        (["check", "--client-timeout-ms", "0"], "option --client-timeout-ms: 0 is out of range 1…600000"),
        (["check", "--field-runs", "0"], "option --field-runs: 0 is out of range 1…10000"),
        (["run", "killed", "--loss-percent", "120"], "option --loss-percent: 120 is out of range 0…100"),
    ])
    func badDeliveryOptions(_ arguments: [String], _ says: String) async throws {
        let result = try #require(await Self.tool.run(arguments))
        #expect(result.status == 64)
        #expect(result.stderr == "astra-pushsim: \(says)\n")
    }
}

import PushKitEmu
import PushSimCommand
import Testing

@Suite struct CommandTests {
    static func noFile(_ path: String) throws -> [UInt8] { throw ScenarioError(.invalidJSON, path) }

    /// Must show: `check` exits 0 with correct, 1 with naive, naming the rules broken.
    @Test(arguments: [(PolicyChoice.correct, Int32(0), [String]()), (.naive, 1, ["R1", "R2", "R5", "R6", "GRANT"])])
    func checkExitCodeAndRules(_ policy: PolicyChoice, _ exitCode: Int32, _ rules: [String]) {
        let out = PushSimCommand.check(policy: policy, seed: 1, format: .json)
        #expect(out.exitCode == exitCode)
        let verdict = out.stdout.last ?? ""
        #expect(verdict.hasPrefix("{\"event\":\"verdict\",\"t\":0,\"command\":\"check\""))
        #expect(verdict.contains("\"rules\":[" + rules.map { "\"\($0)\"" }.joined(separator: ",") + "]"))
        #expect(verdict.contains("\"ok\":\(exitCode == 0)"))
        if exitCode == 0 {
            #expect(out.stderr.isEmpty)
        } else {
            #expect(out.stderr.count == 1)
            for rule in rules { #expect(out.stderr[0].contains(rule)) }
        }
        // One line per built-in under the ideal and under the field delivery model, then the verdict.
        #expect(out.stdout.count == 2 * BuiltInScenarios.all.count + 1)
    }

    /// Every timeline line is a JSON object starting with "event" and "t"; the verdict is last.
    @Test(arguments: BuiltInScenarios.names)
    func runTimelineShape(_ name: String) throws {
        let scenario = try PushSimCommand.scenario(name, load: Self.noFile)
        for policy in PolicyChoice.allCases {
            let out = PushSimCommand.run(scenario, policy: policy, seed: 3, format: .json)
            #expect(
                out.stdout.allSatisfy { $0.hasPrefix("{\"event\":\"") && $0.contains("\",\"t\":") && $0.hasSuffix("}") }
            )
            #expect(out.stdout.last?.hasPrefix("{\"event\":\"verdict\"") == true)
            #expect(out.exitCode == (out.stdout.last!.contains("\"ok\":true") ? 0 : 1))
        }
    }

    /// Push tokens never print in clear: not in JSON, not in text, not in `description`.
    @Test func tokensAreRedactedEverywhere() {
        let token = PushToken(
            0x0123_4567_89AB_CDEF, 0xFEDC_BA98_7654_3210, 0x1111_2222_3333_4444, 0x5555_6666_7777_8888)
        let raw = token.rawHexForAPNsRequestOnly
        #expect(raw.count == 64)
        let rendered = [
            "\(token)", String(describing: token), String(reflecting: token),
            TimelineEvent.tokenIssued(token: token).jsonLine(t: 0),
            TimelineEvent.pushSent(call: 0, push: 0, content: .call, expiration: 0, token: token).jsonLine(t: 0),
        ]
        for text in rendered {
            #expect(!text.lowercased().contains("0123456789abcdef"))
            #expect(!text.contains(raw))
            #expect(text.contains("redacted:"))
        }
        var lines: [String] = []
        for format in [PushSimCommand.Format.json, .text] {
            lines += PushSimCommand.run(BuiltInScenarios.tokenRotated, policy: .correct, seed: 9, format: format).stdout
        }
        var rng = SplitMix64(seed: 9)
        let first = PushToken(using: &rng)
        let second = PushToken(using: &rng)
        #expect(lines.contains { $0.contains(second.redacted) })
        for line in lines {
            #expect(!line.contains(first.rawHexForAPNsRequestOnly))
            #expect(!line.contains(second.rawHexForAPNsRequestOnly))
        }
    }

    @Test func unknownScenarioIsAUsageError() {
        #expect(throws: ScenarioError(.invalidJSON, "")) { try PushSimCommand.scenario("nope", load: Self.noFile) }
    }

    @Test(arguments: [
        "{", "{\"steps\": 3}", "{\"steps\": [{\"at\": 0, \"action\": \"dance\"}]}",
        "{\"steps\": [{\"at\": 0, \"action\": \"hangup\"}]}",
    ])
    func badScenarioFilesAreRejected(_ json: String) {
        #expect(throws: ScenarioError.self) {
            try PushSimCommand.scenario("file.json") { _ in Array(json.utf8) }
        }
    }

    /// A JSON scenario file with partial settings (snake_case) overrides only what it names.
    @Test func scenarioFileDecodes() throws {
        let json = """
            {"name": "custom", "settings": {"ack_window_ms": 1200, "strike_threshold": 2},
             "phone": {"app": "killed", "online": false, "registered": true, "must_report": true},
             "server": {"request": {"expiration_seconds": 0}},
             "steps": [{"at": 1000, "action": "call", "answer_after_ms": 500}], "expect": ["failed_over"]}
            """
        let scenario = try PushSimCommand.scenario("custom.json") { _ in Array(json.utf8) }
        #expect(scenario.settings.ackWindowMs == 1_200)
        #expect(scenario.settings.strikeThreshold == 2)
        #expect(scenario.settings.registerWaitMs == EmulatorSettings().registerWaitMs)
        #expect(scenario.phone.mustReport == true)
        #expect(scenario.steps == [ScenarioStep(at: 1_000, .call, answerAfterMs: 500)])
        let out = PushSimCommand.run(scenario, policy: .correct, seed: 1, format: .json)
        #expect(out.exitCode == 0)
        #expect(out.stdout.contains { $0.contains("\"event\":\"failover\"") && $0.contains("\"after_ms\":1700") })
    }

    @Test(arguments: [(PolicyChoice.correct, Int32(0)), (.naive, 1)])
    func fuzzExitCode(_ policy: PolicyChoice, _ exitCode: Int32) {
        let out = PushSimCommand.fuzz(seed: 42, count: 500, policy: policy, format: .json)
        #expect(out.exitCode == exitCode)
        #expect(out.stdout.last?.contains("\"command\":\"fuzz\"") == true)
        if exitCode == 1 {
            #expect(out.stdout.first?.hasPrefix("{\"event\":\"fuzz_failure\"") == true)
        }
    }

    @Test func textFormatIsReadable() {
        let out = PushSimCommand.run(BuiltInScenarios.deadPhone, policy: .correct, seed: 1, format: .text)
        #expect(out.stdout.last?.contains("3500 ms  verdict  scenario=dead-phone") == true)
        #expect(out.stdout.contains("    3500 ms  failover  call=0 reason=no_ack after_ms=2500 bound_ms=3000"))
    }
}

@Suite struct ExecuteTests {
    static func noFile(_ path: String) throws -> [UInt8] { throw ScenarioError(.invalidJSON, "cannot read '\(path)'") }

    /// Exit codes: 0 ok, 1 violation, 64 usage (TOOLS.md).
    @Test(arguments: [
        ("run", String?("killed"), PolicyChoice.correct, Int32(0)), ("run", "killed", .naive, 1),
        ("run", nil, .correct, 64),
        ("run", "no-such-scenario", .correct, 64), ("dance", nil, .correct, 64), ("check", nil, .correct, 0),
        ("check", nil, .naive, 1), ("fuzz", nil, .correct, 0),
    ])
    func exitCodes(_ command: String, _ scenario: String?, _ policy: PolicyChoice, _ exitCode: Int32) {
        var options = PushSimOptions()
        options.policy = policy
        options.count = 200
        let out = PushSimCommand.execute(command, scenario: scenario, options: options, load: Self.noFile)
        #expect(out.exitCode == exitCode)
        if exitCode == 64 {
            #expect(out.stdout.isEmpty)
            #expect(out.isUsageError)
            #expect(out.stderr.count == 1 && !out.stderr[0].isEmpty)
        }
    }

    /// `--strike-limit` reaches R2: with 4, three dropped pushes do not black out the app.
    @Test(arguments: [(3, true), (4, false)])
    func strikeLimitOption(_ limit: Int, _ blackout: Bool) {
        var options = PushSimOptions()
        options.policy = .naive
        options.strikeLimit = limit
        let out = PushSimCommand.execute("run", scenario: "strike-out", options: options, load: Self.noFile)
        #expect(out.stdout.contains { $0.contains("\"event\":\"push_blackout\"") } == blackout)
    }
}

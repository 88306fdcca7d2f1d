import AstraJSON
import PushKitEmu
import PushSimCommand
import Testing

/// Every seed and replay command the tool prints reproduces what it reported: fuzz case seeds,
/// field-run seeds (`first_failed_seed`), over the whole `UInt64` range.
@Suite struct ReplayTests {
    static func noFile(_ path: String) throws -> [UInt8] { throw ScenarioError(.invalidJSON, path) }

    static func object(_ line: String) throws -> JSONObject {
        try #require(try JSONValue.parse(line).objectValue, "\(line)")
    }

    static func strings(_ value: JSONValue?) -> [String] { value?.arrayValue?.compactMap(\.stringValue) ?? [] }

    /// The options a printed replay command (`astra-pushsim run SCENARIO [--delivery D] [--seed S]
    /// --policy P`) stands for, as the tool's main parses them.
    static func options(replay: String) throws -> (scenario: String, options: PushSimOptions) {
        let words = replay.split(separator: " ").map(String.init)
        #expect(Array(words.prefix(2)) == ["astra-pushsim", "run"], "\(replay)")
        var options = PushSimOptions()
        var i = 3
        while i + 1 < words.count {
            switch words[i] {
            case "--policy": options.policy = try #require(PolicyChoice(rawValue: words[i + 1]))
            case "--delivery": options.deliveries = [try #require(DeliveryModel(rawValue: words[i + 1]))]
            case "--seed":
                options.seed = try #require(UInt64(words[i + 1]), "\(replay)")
                options.seedGiven = true
            default: Issue.record("unexpected replay word \(words[i]) in \(replay)")
            }
            i += 2
        }
        return (words[2], options)
    }

    /// Must show: failing fuzz cases, replayed with the command their `fuzz_failure` line prints,
    /// give the same verdict — the same violations (kinds and count) — whether the case drew ideal
    /// or field delivery; the line names the delivery model and the seed.
    @Test func everyFuzzFailureReplaysToTheSameVerdict() throws {
        var options = PushSimOptions()
        options.policy = .naive
        options.count = 400
        let fuzz = PushSimCommand.execute("fuzz", scenario: nil, options: options, load: Self.noFile)
        let failures = try fuzz.stdout.filter { $0.hasPrefix(#"{"event":"fuzz_failure""#) }.map(Self.object)
        #expect(failures.count == 20)
        var deliveries = Set<String>()
        for failure in failures {
            let replay = try #require(failure["replay"]?.stringValue)
            let seed = try #require(failure["seed"]?.stringValue)
            #expect(failure["scenario"]?.stringValue == "fuzz:\(seed)")
            let delivery = try #require(failure["delivery"]?.stringValue)
            deliveries.insert(delivery)
            let (scenario, replayOptions) = try Self.options(replay: replay)
            #expect(scenario == "fuzz:\(seed)")
            let run = PushSimCommand.execute("run", scenario: scenario, options: replayOptions, load: Self.noFile)
            let last = try #require(run.stdout.last)
            let verdict = try Self.object(last)
            #expect(verdict["ok"]?.boolValue == false, "\(replay)")
            #expect(verdict["delivery"]?.stringValue == delivery, "\(replay)")
            let kinds = Self.strings(failure["kinds"])
            #expect(verdict["violations"]?.intValue == kinds.count, "\(replay): \(kinds)")
            #expect(Self.strings(verdict["kinds"]) == Array(Set(kinds)).sorted(), "\(replay)")
            #expect(run.exitCode == 1)
        }
        // Both kinds of case are among them, so the replay of field draws is what is shown.
        #expect(deliveries == ["ideal", "field"])
    }

    /// Must show: `check` prints field-run seeds across the whole `UInt64` range; each replays
    /// through its `replay` command (never a usage error) and fails the same way.
    @Test func everyFirstFailedSeedReplays() throws {
        let check = PushSimCommand.check(policy: .naive, seed: 1, format: .json, deliveries: [.field], fieldRuns: 8)
        let lines = try check.stdout.filter { $0.contains(#""first_failed_seed""#) }.map(Self.object)
        #expect(lines.count >= 10)
        var aboveInt64 = 0
        for line in lines {
            let text = try #require(line["first_failed_seed"]?.stringValue)
            let seed = try #require(UInt64(text))
            if seed > UInt64(Int64.max) { aboveInt64 += 1 }
            let replay = try #require(line["replay"]?.stringValue)
            let (scenario, options) = try Self.options(replay: replay)
            #expect(options.seed == seed)
            let run = PushSimCommand.execute("run", scenario: scenario, options: options, load: Self.noFile)
            #expect(run.exitCode == 1, "\(replay): \(run.stderr)")
            let last = try #require(run.stdout.last)
            let verdict = try Self.object(last)
            let kinds = Set(Self.strings(verdict["kinds"]))
            #expect(kinds.isSubset(of: Set(Self.strings(line["kinds"]))), "\(replay)")
            #expect(!kinds.isEmpty || verdict["ok"]?.boolValue == false)
        }
        #expect(aboveInt64 > 0, "no printed seed above 2^63-1: the case this guards is not exercised")
    }
}

import Foundation
import Testing

/// `astra-pushsim` through the built binary: every seed it prints is accepted back by `--seed`.
@Suite struct PushSimReplayToolTests {
    static let tool = BuiltTool(name: "astra-pushsim")

    /// Must show: `check` prints `first_failed_seed`s above 2^63−1 (the field seeds are 64-bit
    /// hashes); each one replays through the line's `replay` command — a run that fails like the
    /// check did (exit 1), never a usage error (exit 64).
    @Test func printedFieldSeedsReplay() async throws {
        let check = try #require(
            await Self.tool.run(["check", "--policy", "naive", "--delivery", "field", "--field-runs", "4"]))
        #expect(check.status == 1)
        let seeds = check.stdout.split(separator: "\n").compactMap { line -> (String, String)? in
            guard let seed = line.firstMatch(of: /"first_failed_seed":"(\d+)"/)?.1,
                let replay = line.firstMatch(of: /"replay":"([^"]+)"/)?.1
            else { return nil }
            return (String(seed), String(replay))
        }
        #expect(seeds.count >= 10)
        #expect(seeds.contains { UInt64($0.0)! > UInt64(Int64.max) }, "no seed above 2^63-1 printed")
        for (seed, replay) in seeds.prefix(6) {
            #expect(replay.hasSuffix("--delivery field --seed \(seed) --policy naive"), "\(replay)")
            let words = replay.split(separator: " ").dropFirst().map(String.init)
            let run = try #require(await Self.tool.run(words))
            #expect(run.status == 1, "\(replay): \(run.stderr)")
        }
    }

    /// The whole unsigned range is a seed; one past it is a usage error naming the option.
    @Test func seedTakesTheWholeUnsignedRange() async throws {
        let top = try #require(await Self.tool.run(["fuzz", "--seed", "18446744073709551615", "--count", "3"]))
        #expect(top.status == 0, "\(top.stderr)")
        #expect(top.stdout.contains(#""seed":"18446744073709551615""#))
        let run = try #require(await Self.tool.run(["run", "killed", "--seed", "16753217345285270968"]))
        #expect(run.status == 0, "\(run.stderr)")
        let over = try #require(await Self.tool.run(["run", "killed", "--seed", "18446744073709551616"]))
        #expect(over.status == 64)
        #expect(over.stderr.contains("--seed"))
    }
}

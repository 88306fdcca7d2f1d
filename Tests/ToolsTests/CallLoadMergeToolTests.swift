import Foundation
import Testing

/// `astra-call load --merge` and `--shard` from the command line: one summary out of the
/// shards' files, a clear usage error for what cannot be merged or sharded.
@Suite struct CallLoadMergeToolTests {
    static let tool = BuiltTool(name: "astra-call")

    static func file(_ text: String) throws -> String {
        let path = NSTemporaryDirectory() + "astra-merge-\(UUID().uuidString).jsonl"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func twoShardFilesMergeIntoOneSummary() async throws {
        let path = try Self.file(
            #"{"event":"call_result","setup_ms":12,"stats":{"mos":4.4}}"# + "\n"
                + #"{"event":"load_summary","attempted":1,"ok":1,"failed":0,"wall_ms":900,"cpu_s":0.01}"# + "\n"
                + #"{"event":"load_summary","attempted":2,"ok":1,"failed":1,"failed_by_cause":{"503":1},"wall_ms":1200,"cpu_s":0.02}"#
                + "\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try #require(try await Self.tool.run(["load", "--merge", path]))
        #expect(result.status == 1, "a merged call failed: \(result.stderr)")
        let summary = try #require(result.stdout.split(separator: "\n").first { $0.contains("\"load_summary\"") })
        #expect(summary.contains("\"shards\":2") && summary.contains("\"attempted\":3") && summary.contains("\"503\":1"))
        #expect(summary.contains("\"wall_ms\":1200"), "\(summary)")
    }

    @Test func whatCannotBeMergedOrShardedIsAUsageError() async throws {
        let notJSON = try Self.file("{\"event\":\"load_summary\"}\nnot json\n")
        let empty = try Self.file("{\"event\":\"progress\"}\n")
        let oneLine = try Self.file(
            #"{"v":1,"user":"1001","password":"one-line-secret","domain":"example.test","server":"127.0.0.1:9"}"# + "\n")
        defer { for p in [notJSON, empty, oneLine] { try? FileManager.default.removeItem(atPath: p) } }
        let cases: [([String], String)] = [
            (["load", "--merge", notJSON], ":2: not JSON"),
            (["load", "--merge", empty], "no load_summary event to merge"),
            (["load", "--merge", empty, "--calls", "3"], "places no call: drop --calls"),
            (["load", "--shard", "0/2", "--user", "1001", "--password-file", "/dev/null", "--domain", "example.test",
              "2001"], "--shard divides the lines of --lines FILE"),
            (["load", "--shard", "1/2", "--lines", oneLine, "2001"], "no lines in shard 1/2"),
            (["load", "--shard", "2/2", "--lines", oneLine, "2001"], "--shard: 2/2 is out of range"),
        ]
        for (arguments, message) in cases {
            let result = try #require(try await Self.tool.run(arguments))
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")
        }
    }
}

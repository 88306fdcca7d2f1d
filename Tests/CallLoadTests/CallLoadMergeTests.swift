import AstraJSON
import CallLoad
import LineRunner
import Testing

/// `astra-call load --merge`: the shards of one load make one summary — counts and causes
/// summed, percentiles recomputed from every call (not averaged), the longest wall time.
@Suite struct CallLoadMergeTests {
    static func event(_ text: String) throws -> JSONValue { try JSONValue.parse(Array(text.utf8)) }

    /// Two shards' JSON Lines, each with its calls and its summary, as `cat shard-*.jsonl` gives.
    static let shards = [
        #"{"event":"call_result","index":0,"ok":true,"setup_ms":10,"stats":{"mos":4.4}}"#,
        #"{"event":"call_result","index":1,"ok":true,"setup_ms":20,"stats":{"mos":4.2}}"#,
        #"{"event":"progress","done":1}"#,
        #"{"event":"load_summary","planned":2,"attempted":2,"done":2,"ok":2,"failed":0,"abandoned":0,"#
            + #""answered":2,"two_way_media":2,"failed_by_cause":{},"packets_sent":500,"packets_received":500,"#
            + #""stopped":"completed","wall_ms":3000,"cpu_s":0.2}"#,
        #"{"event":"call_result","index":0,"ok":true,"setup_ms":30,"stats":{"mos":4.0}}"#,
        #"{"event":"call_result","index":1,"ok":false,"cause":"486","setup_ms":null,"stats":{"mos":null}}"#,
        #"{"event":"call_result","index":2,"ok":false,"cause":"486","setup_ms":null,"stats":{"mos":null}}"#,
        #"{"event":"load_summary","planned":3,"attempted":3,"done":3,"ok":1,"failed":2,"abandoned":0,"#
            + #""answered":1,"two_way_media":1,"failed_by_cause":{"486":2},"packets_sent":250,"#
            + #""packets_received":250,"stopped":"completed","wall_ms":4500,"cpu_s":0.3}"#,
    ]

    @Test func shardsMergeIntoOneSummary() throws {
        var merge = CallLoadMerge()
        for line in Self.shards { merge.add(try Self.event(line)) }
        let summary = try #require(merge.summary())
        #expect(summary["shards"]?.intValue == 2)
        #expect(summary["attempted"]?.intValue == 5 && summary["ok"]?.intValue == 3 && summary["failed"]?.intValue == 2)
        #expect(summary["answered"]?.intValue == 3 && summary["packets_sent"]?.intValue == 750)
        #expect(summary["failed_by_cause"]?["486"]?.intValue == 2)
        #expect(summary["wall_ms"]?.doubleValue == 4500)
        #expect(summary["cpu_s"]?.doubleValue == 0.5 && summary["cpu_s_per_call"]?.doubleValue == 0.1)
        #expect(summary["stopped"]?.stringValue == "completed")
        // From the three answered calls, not the shards' own percentiles: p50 is 20 ms.
        let expected = LoadReport.percentiles([10, 20, 30], at: [50, 95, 99])
        #expect(summary["setup_ms"] == expected)
        #expect(summary["mos"] == LoadReport.percentiles([4.4, 4.2, 4.0], at: [5, 50], max: false))
    }

    /// Shards that stopped differently say so; a run without summary merges to nothing.
    @Test func mixedStopsAndMissingSummaries() throws {
        var merge = CallLoadMerge()
        merge.add(try Self.event(#"{"event":"load_summary","attempted":1,"stopped":"signal"}"#))
        merge.add(try Self.event(#"{"event":"load_summary","attempted":1,"stopped":"completed"}"#))
        #expect(merge.summary()?["stopped"]?.stringValue == "mixed")
        var empty = CallLoadMerge()
        empty.add(try Self.event(#"{"event":"call_result","setup_ms":1}"#))
        #expect(empty.summary() == nil)
    }

    /// A count that is not finite (`1e999`) is no count.
    @Test func aHugeNumberIsNoCount() throws {
        var merge = CallLoadMerge()
        merge.add(try Self.event(#"{"event":"load_summary","attempted":1e999,"failed":1}"#))
        let summary = try #require(merge.summary())
        #expect(summary["attempted"] == nil && summary["failed"]?.intValue == 1)
    }
}

import PushKitEmu
import Testing

/// Every number in a scenario file has a range (docs/pushkit-emulator.md "Bounds"): the huge
/// values that once trapped the run (SIGILL, exit 132) are refused, naming the field.
@Suite struct ScenarioBoundsTests {
    static let huge = "9223372036854775807"

    @Test(arguments: [
        (#"{"steps":[{"at":\#(huge),"action":"call"}]}"#, "steps.0.at"),
        (#"{"steps":[{"at":0,"action":"call","answer_after_ms":\#(huge)}]}"#, "steps.0.answer_after_ms"),
        (#"{"steps":[{"at":0,"action":"call","decline_after_ms":-1}]}"#, "steps.0.decline_after_ms"),
        (#"{"settings":{"ack_window_ms":\#(huge)},"steps":[]}"#, "settings.ack_window_ms"),
        (#"{"settings":{"network_one_way_ms":-5},"steps":[]}"#, "settings.network_one_way_ms"),
        (#"{"settings":{"expiry_cap_seconds":\#(huge)},"steps":[]}"#, "settings.expiry_cap_seconds"),
        (#"{"settings":{"strike_threshold":0},"steps":[]}"#, "settings.strike_threshold"),
        (#"{"server":{"request":{"payload_bytes":\#(huge)}},"steps":[]}"#, "server.request.payload_bytes"),
        (#"{"steps":[{"at":0,"action":"call"},{"at":5,"action":"hangup","call":3}]}"#, "steps.1.call"),
    ])
    func outOfRangeNumbersAreRefused(_ json: String, _ field: String) {
        do {
            _ = try Scenario.decode(json: Array(json.utf8))
            Issue.record("accepted \(json)")
        } catch {
            #expect(error.reason.contains("\(field) = "), "\(error.reason)")
            #expect(error.reason.contains("out of range"))
        }
    }

    @Test func numbersJSONCannotHoldAreRefusedToo() {
        #expect(throws: ScenarioError(.invalidJSON, "")) {
            try Scenario.decode(json: Array(#"{"steps":[{"at":1e300,"action":"call"}]}"#.utf8))
        }
    }

    @Test func valuesAtTheirBoundsRun() throws {
        let json = #"{"settings":{"ack_window_ms":3600000},"steps":[{"at":86400000,"action":"call","answer_after_ms":86400000}]}"#
        let scenario = try Scenario.decode(json: Array(json.utf8))
        let report = ScenarioRunner.run(scenario, policy: .correct, seed: 1)
        #expect(!report.timeline.isEmpty)
    }
}

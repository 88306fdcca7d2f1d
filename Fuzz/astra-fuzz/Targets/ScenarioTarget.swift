import PushKitEmu

/// Scenario files for astra-pushsim (docs/pushkit-emulator.md "Scenario files"), decoded and
/// then run in virtual time against the correct reference policy — every number in the file
/// reaches the simulator's clock and timers. Seeds: the documentation's example and the test
/// scenarios.
///
/// Invariant: a scenario that decodes runs to its end (the report's end time is not before its
/// last step) without trapping.
enum ScenarioTarget {
    static let target = FuzzTarget(
        name: "scenario-json",
        summary: "astra-pushsim scenario JSON decoding and a virtual-time run of what decodes",
        maxLength: 4096, dictionary: "scenario",
        seeds: seeds, run: run)

    static func run(_ bytes: [UInt8]) {
        guard let scenario = try? Scenario.decode(json: bytes) else { return }
        guard scenario.steps.count <= 64 else { return }
        let report = ScenarioRunner.run(scenario, policy: .correct, seed: 1)
        _ = (report.violations.count, report.outcomes, report.expectationMet, report.events)
    }

    static func seeds() -> [[UInt8]] {
        let files = [
            """
            {"name": "my-case", "summary": "…",
             "settings": {"ack_window_ms": 1500, "strike_threshold": 2},
             "phone": {"app": "killed", "online": true, "locked": false, "environment": "production",
                       "registered": false, "token_on_server": true, "must_report": true},
             "server": {"bundle_id": "com.example.astra", "apns_environment": "production",
                        "messages_via_voip": false, "gone_notice": false,
                        "request": {"push_type": "voip", "topic": "com.example.astra.voip", "priority": 10,
                                    "expiration_seconds": 0, "payload_bytes": 220}},
             "steps": [{"at": 1000, "action": "call", "answer_after_ms": 2000},
                       {"at": 1300, "action": "hangup", "call": 0}],
             "expect": ["cancelled"]}
            """,
            """
            {"name": "custom", "settings": {"ack_window_ms": 1200, "strike_threshold": 2},
             "phone": {"app": "killed", "online": false, "registered": true, "must_report": true},
             "server": {"request": {"expiration_seconds": 0}},
             "steps": [{"at": 1000, "action": "call", "answer_after_ms": 500}], "expect": ["failed_over"]}
            """,
            #"{"steps": [{"at": 0, "action": "app", "state": "background"}, {"at": 10, "action": "call"}, {"at": 20, "action": "hangup", "call": 0}]}"#,
        ]
        return files.map { Array($0.utf8) }
    }
}

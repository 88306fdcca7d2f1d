/// The documented bounds of every number in a scenario file (docs/pushkit-emulator.md "Bounds"),
/// checked once after decoding so no later sum of virtual times can overflow or trap.
///
/// Virtual times (`at`, `answer_after_ms`, …) are at most a day; timeouts at most an hour; counts
/// and sizes are bounded as the model needs. Delays (`apns_delay`, `launch_from_*`) and the
/// percentages are checked where they are decoded (``DelayDistribution``). A value outside its
/// range is a usage error (exit 64) naming the field.
extension Scenario {
    /// `steps[].at`, `answer_after_ms`, `decline_after_ms`: a day of virtual milliseconds.
    public static let virtualTimeRange: ClosedRange<Int64> = 0...86_400_000
    /// Every `settings.*_ms` timeout, latency and delay: an hour.
    public static let settingMillisecondsRange: ClosedRange<Int64> = 0...3_600_000
    /// `settings.expiry_*_seconds`: a day.
    public static let expirySecondsRange: ClosedRange<Int> = 0...86_400
    /// Steps in one scenario.
    public static let maxSteps = 10_000

    /// Throws the first number out of its range, naming it as the file does.
    func checkBounds() throws(ScenarioError) {
        func check<T: BinaryInteger>(_ value: T, _ range: ClosedRange<T>, _ field: String) throws(ScenarioError) {
            guard range.contains(value) else {
                throw ScenarioError(
                    .invalidJSON, "scenario JSON: \(field) = \(value) is out of range \(range.lowerBound)…\(range.upperBound)")
            }
        }
        guard steps.count <= Self.maxSteps else {
            throw ScenarioError(.invalidJSON, "scenario JSON: more than \(Self.maxSteps) steps")
        }
        let calls = steps.filter { $0.action == .call }.count
        for (i, step) in steps.enumerated() {
            try check(step.at, Self.virtualTimeRange, "steps.\(i).at")
            if let ms = step.answerAfterMs { try check(ms, Self.virtualTimeRange, "steps.\(i).answer_after_ms") }
            if let ms = step.declineAfterMs { try check(ms, Self.virtualTimeRange, "steps.\(i).decline_after_ms") }
            if let call = step.call { try check(call, 0...max(0, calls - 1), "steps.\(i).call") }
        }
        let ms: [(String, Int64)] = [
            ("ack_window_ms", settings.ackWindowMs), ("failover_bound_ms", settings.failoverBoundMs),
            ("register_wait_ms", settings.registerWaitMs), ("qualify_timeout_ms", settings.qualifyTimeoutMs),
            ("invite_timeout_ms", settings.inviteTimeoutMs), ("network_one_way_ms", settings.networkOneWayMs),
            ("expired_late_delivery_window_ms", settings.expiredLateDeliveryWindowMs),
            ("placeholder_timeout_ms", settings.placeholderTimeoutMs),
            ("answer_action_timeout_ms", settings.answerActionTimeoutMs), ("stale_after_ms", settings.staleAfterMs),
            ("naive_merge_delay_ms", settings.naiveMergeDelayMs),
        ]
        for (name, value) in ms { try check(value, Self.settingMillisecondsRange, "settings.\(name)") }
        try check(settings.expiryCapSeconds, Self.expirySecondsRange, "settings.expiry_cap_seconds")
        try check(settings.expiryFloorSeconds, Self.expirySecondsRange, "settings.expiry_floor_seconds")
        try check(settings.requestedExpirySeconds, Self.expirySecondsRange, "settings.requested_expiry_seconds")
        try check(settings.maxVoIPPayloadBytes, 0...1_048_576, "settings.max_voip_payload_bytes")
        try check(settings.strikeThreshold, 1...1_000, "settings.strike_threshold")
        try check(server.request.priority, 0...100, "server.request.priority")
        try check(server.request.expirationSeconds, 0...Int(Int32.max), "server.request.expiration_seconds")
        try check(server.request.payloadBytes, 0...1_048_576, "server.request.payload_bytes")
    }
}

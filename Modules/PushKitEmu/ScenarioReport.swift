/// The result of running one scenario: timeline, violations, outcomes, verdict.
public struct ScenarioReport: Sendable {
    /// Scenario name.
    public var scenario: String
    /// Policy name.
    public var policy: String
    /// Every timeline event.
    public var timeline: [(t: Int64, event: TimelineEvent)]
    /// Rule violations, in time order.
    public var violations: [Violation]
    /// Final outcome per call.
    public var outcomes: [CallOutcome]
    /// Expected outcomes, if the scenario states them.
    public var expected: [CallOutcome]?
    /// Per call, whether its failover was excused by delivery (``Simulation/excused``).
    public var excused: [Bool] = []
    /// Simulated events processed.
    public var events: Int
    /// Virtual time (ms) of the last timeline event.
    public var endTime: Int64
    /// The client process broke the client protocol; the run stopped there.
    public var clientFailure: ClientFault?
    /// The client's own strings for its CallKit UUIDs (``Simulation/uuidNames``).
    public var uuidNames: [Int32: String] = [:]

    /// Whether the outcomes match the expectation (true when none is stated). A call expected to
    /// connect (or be cancelled) that failed over because its push could not reach the app within
    /// the ack window — lost, late, or the app still launching — is excused: that is delivery, not
    /// the client (it only happens under a field delivery model or long delays).
    public var expectationMet: Bool {
        guard let expected else { return true }
        guard expected.count == outcomes.count else { return false }
        for (i, (want, got)) in zip(expected, outcomes).enumerated() where want != got {
            guard got == .failedOver, i < excused.count, excused[i] else { return false }
        }
        return true
    }

    /// How many calls missed their expected outcome and were excused by delivery (failed over
    /// because the push could not reach the app in time).
    public var excusedCount: Int {
        guard let expected, expected.count == outcomes.count else { return 0 }
        return outcomes.indices.filter {
            outcomes[$0] == .failedOver && expected[$0] != .failedOver && $0 < excused.count && excused[$0]
        }.count
    }
    /// No violation and the expected outcomes.
    public var passed: Bool { violations.isEmpty && expectationMet }
    /// Rules broken, sorted.
    public var rulesBroken: [RuleID] { Array(Set(violations.map(\.rule))).sorted() }
}

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
    /// Simulated events processed.
    public var events: Int
    /// Virtual time (ms) of the last timeline event.
    public var endTime: Int64

    /// Whether the outcomes match the expectation (true when none is stated).
    public var expectationMet: Bool { expected.map { $0 == outcomes } ?? true }
    /// No violation and the expected outcomes.
    public var passed: Bool { violations.isEmpty && expectationMet }
    /// Rules broken, sorted.
    public var rulesBroken: [RuleID] { Array(Set(violations.map(\.rule))).sorted() }
}

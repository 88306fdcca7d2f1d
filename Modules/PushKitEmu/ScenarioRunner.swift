/// The client policy to run: the shipped presets.
public enum PolicyChoice: String, Sendable, Hashable, CaseIterable {
    /// ``ReferencePolicy/correct(_:)``.
    case correct
    /// ``ReferencePolicy/naive(_:)``.
    case naive

    /// The policy value for `settings`.
    public func policy(_ settings: EmulatorSettings) -> ReferencePolicy {
        switch self {
        case .correct: .correct(settings)
        case .naive: .naive(settings)
        }
    }
}

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

/// Runs scenarios with a policy and collects ``ScenarioReport``s.
public enum ScenarioRunner {
    /// Runs `scenario` with any policy.
    public static func run<P: PushClientPolicy>(_ scenario: Scenario, policy: P, seed: UInt64 = 1) -> ScenarioReport {
        var sim = Simulation(scenario: scenario, policy: policy, sink: TimelineRecorder(), seed: seed)
        sim.run()
        return ScenarioReport(
            scenario: scenario.name, policy: policy.name, timeline: sim.sink.events,
            violations: sim.checker.violations, outcomes: sim.outcomes, expected: scenario.expect,
            events: sim.processed, endTime: sim.sink.events.last?.t ?? sim.now)
    }

    /// Runs `scenario` with a preset policy built from the scenario's settings.
    public static func run(_ scenario: Scenario, policy: PolicyChoice, seed: UInt64 = 1) -> ScenarioReport {
        run(scenario, policy: policy.policy(scenario.settings), seed: seed)
    }

    /// Runs every built-in (the `check` command).
    public static func checkAll(policy: PolicyChoice, seed: UInt64 = 1) -> [ScenarioReport] {
        BuiltInScenarios.all.map { run($0, policy: policy, seed: seed) }
    }
}

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

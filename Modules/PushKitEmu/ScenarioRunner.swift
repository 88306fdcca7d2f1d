/// Runs scenarios with a policy and collects ``ScenarioReport``s.
public enum ScenarioRunner {
    /// A timeline event as it happens: time, event, the client's UUID names so far.
    public typealias EventHandler = (_ t: Int64, _ event: TimelineEvent, _ uuidNames: [Int32: String]) -> Void

    /// Runs `scenario` with any policy; `onEvent` sees each timeline event as soon as the step
    /// that made it is over (so a tool can print while a client process is still thinking).
    public static func run<P: PushClientPolicy>(
        _ scenario: Scenario, policy: P, seed: UInt64 = 1, sealing: any SealBox = SymbolicSealBox(),
        onEvent: EventHandler = { _, _, _ in }
    ) -> ScenarioReport {
        var sim = Simulation(scenario: scenario, policy: policy, sink: TimelineRecorder(), seed: seed, sealing: sealing)
        var shown = 0
        var more = true
        while more {
            more = sim.step()
            // The last step may still record (the end-of-run checks): show those too.
            while shown < sim.sink.events.count {
                let (t, event) = sim.sink.events[shown]
                onEvent(t, event, sim.uuidNames)
                shown += 1
            }
        }
        return ScenarioReport(
            scenario: scenario.name, policy: policy.name, timeline: sim.sink.events,
            violations: sim.checker.violations, outcomes: sim.outcomes, expected: scenario.expect,
            excused: sim.excused, events: sim.processed, endTime: sim.sink.events.last?.t ?? sim.now,
            clientFailure: sim.clientFailure, uuidNames: sim.uuidNames)
    }

    /// Runs `scenario` with a fresh policy from `source` (named by the source).
    public static func run<S: PolicySource>(
        _ scenario: Scenario, source: S, seed: UInt64 = 1, onEvent: EventHandler = { _, _, _ in }
    ) -> ScenarioReport {
        let policy = source.policy(for: scenario)
        if let fault = source.failure {
            // The client broke the protocol before the run began (its answer to `reset`): nothing ran.
            return ScenarioReport(
                scenario: scenario.name, policy: source.name, timeline: [],
                violations: [Violation(fault.violationKind, t: 0)], outcomes: [], expected: scenario.expect,
                events: 0, endTime: 0, clientFailure: fault)
        }
        var report = run(scenario, policy: policy, seed: seed, sealing: source.sealing, onEvent: onEvent)
        report.policy = source.name
        if report.clientFailure == nil, let fault = source.failure {
            report.clientFailure = fault
            report.violations.append(Violation(fault.violationKind, t: report.endTime))
        }
        return report
    }

    /// Runs `scenario` with a preset policy built from the scenario's settings.
    public static func run(_ scenario: Scenario, policy: PolicyChoice, seed: UInt64 = 1) -> ScenarioReport {
        run(scenario, source: policy, seed: seed)
    }

    /// Runs every built-in under the ideal delivery model (a Swift package's own test of its policy).
    public static func checkAll<S: PolicySource>(source: S, seed: UInt64 = 1) -> [ScenarioReport] {
        BuiltInScenarios.all.map { run($0, source: source, seed: seed) }
    }

    /// Runs every built-in with a preset.
    public static func checkAll(policy: PolicyChoice, seed: UInt64 = 1) -> [ScenarioReport] {
        checkAll(source: policy, seed: seed)
    }

    /// Runs `scenario` (settings already under the field model) `runs` times, seed k being
    /// `Fuzzer.caseSeed(seed, k)`.
    public static func runField<S: PolicySource>(_ scenario: Scenario, source: S, seed: UInt64 = 1, runs: Int = 20)
        -> FieldCheck
    {
        var check = FieldCheck(scenario: scenario.name)
        for k in 0..<max(runs, 0) {
            let s = Fuzzer.caseSeed(seed, k)
            check.add(run(scenario, source: source, seed: s), seed: s)
            if check.clientFailure != nil { break }
        }
        return check
    }

    /// Runs every built-in `runs` times under the field delivery model; one ``FieldCheck`` each.
    public static func checkField<S: PolicySource>(source: S, seed: UInt64 = 1, runs: Int = 20) -> [FieldCheck] {
        BuiltInScenarios.all.map { runField(DeliveryModel.field.apply(to: $0), source: source, seed: seed, runs: runs) }
    }
}

extension DeliveryModel {
    /// `scenario` with its settings under this model.
    public func apply(to scenario: Scenario, overrides: DeliveryOverrides = DeliveryOverrides()) -> Scenario {
        var s = scenario
        s.settings = apply(to: scenario.settings, overrides: overrides)
        return s
    }
}

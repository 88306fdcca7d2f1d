/// One built-in scenario run under the field delivery model with many seeds: how often the
/// client kept every rule, what the calls ended as, and the first seed that failed (replay:
/// `astra-pushsim run NAME --delivery field --seed SEED`).
public struct FieldCheck: Sendable, Hashable {
    /// Scenario name.
    public var scenario: String
    /// Runs (seeds).
    public var runs = 0
    /// Runs with a violation or an unexcused outcome.
    public var failedRuns = 0
    /// Violations over all runs.
    public var violations = 0
    /// Rules broken in any run.
    public var rules: Set<RuleID> = []
    /// Violation kinds seen in any run.
    public var kinds: Set<String> = []
    /// Call outcomes over all runs.
    public var outcomes: [CallOutcome: Int] = [:]
    /// Calls that failed over excused by delivery (push lost, late, app still launching).
    public var excused = 0
    /// The first failing run's seed.
    public var firstFailedSeed: UInt64?
    /// The client process broke the client protocol (the runs stopped there).
    public var clientFailure: ClientFault?

    public init(scenario: String) { self.scenario = scenario }

    /// Adds one run's report.
    public mutating func add(_ report: ScenarioReport, seed: UInt64) {
        runs += 1
        violations += report.violations.count
        rules.formUnion(report.rulesBroken)
        kinds.formUnion(report.violations.map(\.kind.rawValue))
        for outcome in report.outcomes { outcomes[outcome, default: 0] += 1 }
        excused += report.excusedCount
        if clientFailure == nil { clientFailure = report.clientFailure }
        if !report.passed {
            failedRuns += 1
            if firstFailedSeed == nil { firstFailedSeed = seed }
        }
    }

    /// Every run kept the rules and met (or was excused from) its expected outcomes.
    public var passed: Bool { failedRuns == 0 }
}

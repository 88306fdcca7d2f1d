/// Random scenarios checked against the invariants: every push reported before return
/// (R1/R4), at most one call per push (R5 duplicate), no ring after the caller left (R5/R6), and
/// failover within the bound (WAKE). Any violation by the policy is a failure.
public enum Fuzzer {
    /// The seed of case `index` of a run seeded with `seed`.
    public static func caseSeed(_ seed: UInt64, _ index: Int) -> UInt64 {
        var g = SplitMix64(seed: seed ^ (UInt64(index) &* 0xD1B5_4A32_D192_ED03))
        return g.next()
    }

    /// The random scenario for a case seed (deterministic).
    public static func scenario(caseSeed: UInt64) -> Scenario {
        var g = SplitMix64(seed: caseSeed)
        var s = Scenario(name: "fuzz:\(caseSeed)", summary: "random event sequence")
        let states = AppState.allCases
        s.phone.app = states[Int(g.below(Int64(states.count)))]
        s.phone.online = g.chance(85)
        s.phone.locked = g.chance(30)
        s.phone.registered = g.chance(50)
        s.phone.tokenOnServer = g.chance(95)
        switch g.below(3) {
        case 0: s.phone.mustReport = nil
        case 1: s.phone.mustReport = true
        default: s.phone.mustReport = false
        }
        s.settings.apnsDelay = .fixed(20 + g.below(g.chance(10) ? 3_000 : 600))
        s.settings.networkOneWayMs = 5 + g.below(150)
        s.settings.launchFromKilled = .fixed(200 + g.below(900))
        s.settings.launchFromSuspended = .fixed(10 + g.below(150))
        if g.chance(10) { s.server.request.expirationSeconds = 3_600 }
        s.server.goneNotice = g.chance(50)
        var t: Int64 = 0
        var callCount = 0
        let stepCount = 3 + Int(g.below(10))
        s.steps.reserveCapacity(stepCount)
        for _ in 0..<stepCount {
            t += g.below(4_000)
            switch g.below(20) {
            case 0...5:
                let answer = g.chance(70) ? g.below(6_000) : nil
                let decline = g.chance(15) ? g.below(6_000) : nil
                s.steps.append(ScenarioStep(at: t, .call, answerAfterMs: answer, declineAfterMs: decline))
                callCount += 1
            case 6...8:
                if callCount > 0 { s.steps.append(ScenarioStep(at: t, .hangup, call: Int(g.below(Int64(callCount))))) }
            case 9: s.steps.append(ScenarioStep(at: t, .offline))
            case 10, 11: s.steps.append(ScenarioStep(at: t, .online))
            case 12, 13: s.steps.append(ScenarioStep(at: t, .app, state: states[Int(g.below(Int64(states.count)))]))
            case 14: s.steps.append(ScenarioStep(at: t, g.chance(50) ? .lock : .unlock))
            case 15: s.steps.append(ScenarioStep(at: t, .rotateToken))
            case 16: s.steps.append(ScenarioStep(at: t, .invalidateToken))
            case 17: s.steps.append(ScenarioStep(at: t, .message))
            default:
                // A known-origin call push is indistinguishable from the server's: raw ones are foreign.
                let contents: [PushContent] = [.unreadable, .call, .keepAlive, .message]
                let content = contents[Int(g.below(4))]
                s.steps.append(
                    ScenarioStep(
                        at: t, .rawPush, content: content,
                        origin: content == .call || g.chance(50) ? .unknown : .known))
            }
        }
        // Drawn after the steps, so the fixed-delay cases keep the steps they always had: in about a
        // third of the cases the delivery is the field model's — delays drawn per push (reordering),
        // loss, expired pushes delivered late — around random medians.
        if g.chance(33) {
            let median = 50 + g.below(1_500)
            s.settings.apnsDelay = .logNormal(medianMs: median, p95Ms: median + g.below(8_000))
            let launch = 200 + g.below(1_000)
            s.settings.launchFromKilled = .logNormal(medianMs: launch, p95Ms: launch + g.below(2_000))
            s.settings.apnsLossPercent = Double(g.below(5))
            s.settings.expiredLateDeliveryPercent = Double(g.below(50))
        }
        return s
    }

    /// The delivery model a fuzz case drew: `field` when its APNs delay is a distribution drawn
    /// per push (about a third of the cases), `ideal` when every delay is fixed. Printed with a
    /// failing case so its replay can be read for what it is.
    public static func delivery(of scenario: Scenario) -> DeliveryModel {
        if case .fixed = scenario.settings.apnsDelay { return .ideal }
        return .field
    }

    /// Runs `count` random cases with a fresh policy from `source` each; stops collecting failures
    /// after `maxFailures`.
    /// `onFailure` sees each failing case kept, as soon as it failed.
    public static func run<S: PolicySource>(
        seed: UInt64, count: Int, source: S, maxFailures: Int = 20, onFailure: (FuzzFailure) -> Void = { _ in }
    ) -> FuzzReport {
        run(
            seed: seed, count: count, policy: { source.policy(for: $0) }, maxFailures: maxFailures,
            failure: { source.failure }, onFailure: onFailure)
    }

    /// Runs `count` random cases with `policy`; stops collecting failures after `maxFailures`,
    /// and stops at once when the client breaks the client protocol (`failure`: a fault the
    /// policy's source saw outside a callback).
    public static func run<P: PushClientPolicy>(
        seed: UInt64, count: Int, policy: (Scenario) -> P,
        maxFailures: Int = 20, failure: () -> ClientFault? = { nil }, onFailure: (FuzzFailure) -> Void = { _ in }
    ) -> FuzzReport {
        var report = FuzzReport(seed: seed, count: count, events: 0, failures: [])
        for index in 0..<count {
            let cs = caseSeed(seed, index)
            let scenario = scenario(caseSeed: cs)
            var sim = Simulation(scenario: scenario, policy: policy(scenario), sink: CountingSink(), seed: cs)
            report.casesRun += 1
            sim.run()
            report.events += sim.processed
            var violations = sim.checker.violations
            if sim.clientFailure == nil, let fault = failure() {
                violations.append(Violation(fault.violationKind, t: sim.now))
                sim.clientFailure = fault
            }
            guard !violations.isEmpty else { continue }
            report.failingCases += 1
            if report.failures.count < maxFailures {
                let failure = FuzzFailure(
                    index: index, caseSeed: cs, delivery: delivery(of: scenario), violations: violations)
                report.failures.append(failure)
                onFailure(failure)
            }
            if let fault = sim.clientFailure {
                report.clientFailure = fault
                break
            }
        }
        return report
    }

    /// Runs with a preset policy.
    public static func run(seed: UInt64, count: Int, policy: PolicyChoice, maxFailures: Int = 20) -> FuzzReport {
        run(seed: seed, count: count, source: policy, maxFailures: maxFailures)
    }
}

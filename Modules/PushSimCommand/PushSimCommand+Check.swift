import PushKitEmu

/// `astra-pushsim check`: every built-in scenario under each delivery model.
extension PushSimCommand {
    /// `check`: every built-in under each delivery model (ideal: one run each; field: `fieldRuns`
    /// seeds each), one line per scenario the moment it is done; exit 1 naming the rules broken.
    ///
    /// A client that breaks the protocol stops the check at that scenario: the verdict counts the
    /// scenarios run of those planned and lists only the delivery models that ran, and stderr
    /// says where it stopped — the scenarios never run are neither passed nor failed.
    public static func check<S: PolicySource>(
        source: S, seed: UInt64, format: Format, strikeLimit: Int? = nil,
        deliveries: [DeliveryModel] = DeliveryModel.allCases, fieldRuns: Int = 20,
        overrides: DeliveryOverrides = DeliveryOverrides(), options: PushSimOptions = PushSimOptions(),
        emit: (String) -> Void = { _ in }
    ) -> PushSimOutput {
        var out = PushSimOutput()
        var rules = Set<RuleID>()
        var failed: [String] = []
        var count = 0
        var ran: [DeliveryModel] = []
        var clientFailure: ClientFault?
        var stoppedIn = ""
        let planned = deliveries.count * BuiltInScenarios.all.count
        func prepared(_ builtIn: Scenario, _ delivery: DeliveryModel) -> Scenario {
            var scenario = builtIn
            if let strikeLimit { scenario.settings.strikeThreshold = strikeLimit }
            return delivery.apply(to: scenario, overrides: overrides)
        }
        runs: for delivery in deliveries {
            for builtIn in BuiltInScenarios.all {
                if clientFailure != nil { break runs }
                count += 1
                if ran.last != delivery { ran.append(delivery) }
                let scenario = prepared(builtIn, delivery)
                let name = delivery == .ideal ? scenario.name : "\(scenario.name)@\(delivery.rawValue)"
                let passed: Bool
                if delivery == .ideal {
                    let report = ScenarioRunner.run(scenario, source: source, seed: seed)
                    out.print(render(verdictLine(report, event: "scenario", delivery: delivery), format), emit)
                    rules.formUnion(report.rulesBroken)
                    passed = report.passed
                    clientFailure = report.clientFailure
                } else {
                    let field = ScenarioRunner.runField(scenario, source: source, seed: seed, runs: fieldRuns)
                    out.print(render(fieldLine(field, policy: source.name, options: options), format), emit)
                    rules.formUnion(field.rules)
                    passed = field.passed
                    clientFailure = field.clientFailure
                }
                if clientFailure != nil {
                    stoppedIn = name
                } else if !passed {
                    failed.append(name)
                }
            }
        }
        let names = rules.sorted().map(\.rawValue)
        var line = JSONLine(event: "verdict", t: 0)
        line.add("command", "check")
        line.add("policy", source.name)
        line.add("ok", failed.isEmpty && clientFailure == nil)
        line.add("delivery", ran.map(\.rawValue))
        line.add("scenarios", count)
        line.add("planned", planned)
        line.add("failed", failed + (clientFailure == nil ? [] : [stoppedIn]))
        line.add("rules", names)
        if let clientFailure {
            line.add("client_error", clientFailure.detail)
            line.add("stopped_in", stoppedIn)
        }
        out.print(render(line.string, format), emit)
        if !failed.isEmpty {
            out.exitCode = exitViolation
            let broken = rules.subtracting([.client]).sorted().map(\.rawValue)
            let what = broken.isEmpty ? "no rule (outcomes differ)" : broken.joined(separator: ", ")
            out.stderr.append(
                "check: policy \(source.name) broke \(what) in \(failed.count) of \(count) scenarios: \(failed.joined(separator: ", "))"
            )
        }
        if let clientFailure {
            out.exitCode = exitViolation
            out.stderr.append(
                "client '\(source.name)': \(clientFailure.detail) (check stopped in \(stoppedIn), scenario \(count) of \(planned))"
            )
        }
        return out
    }

    /// `check` with a preset policy.
    public static func check(
        policy: PolicyChoice, seed: UInt64, format: Format, strikeLimit: Int? = nil,
        deliveries: [DeliveryModel] = DeliveryModel.allCases, fieldRuns: Int = 20
    ) -> PushSimOutput {
        var options = PushSimOptions()
        options.policy = policy
        return check(
            source: policy, seed: seed, format: format, strikeLimit: strikeLimit, deliveries: deliveries,
            fieldRuns: fieldRuns, options: options)
    }
}

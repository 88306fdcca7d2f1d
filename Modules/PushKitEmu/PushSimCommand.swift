/// The `astra-pushsim` commands (docs/man/astra-pushsim.md), independent of argument parsing.
package enum PushSimCommand {
    /// Runs `command` (`run`, `check`, `fuzz`) with the preset policy of `options`; `scenario` is
    /// `run`'s argument; `load` reads a scenario file (`-` = standard input, the caller decides).
    public static func execute(
        _ command: String, scenario argument: String?, options: PushSimOptions,
        load: (String) throws -> [UInt8]
    ) -> PushSimOutput {
        execute(command, scenario: argument, options: options, source: options.policy, load: load)
    }

    /// Runs `command` with the policies of `source` (a preset, a Swift policy, a client process).
    public static func execute<S: PolicySource>(
        _ command: String, scenario argument: String?, options: PushSimOptions, source: S,
        load: (String) throws -> [UInt8]
    ) -> PushSimOutput {
        switch command {
        case "run":
            guard let argument else { return usage("run needs a SCENARIO (built-in name or JSON file)") }
            guard options.deliveries.count <= 1 else { return usage("run takes --delivery ideal or field") }
            do {
                var scenario = try scenario(argument, load: load)
                if let limit = options.strikeLimit { scenario.settings.strikeThreshold = limit }
                var seed = options.seed
                var delivery = options.deliveries.first ?? .ideal
                if let caseSeed = fuzzCaseSeed(argument) {
                    // A fuzz case carries its own delivery (ideal or field draws) and ran with its
                    // own seed: the replay is that case unless the command line asks otherwise.
                    if !options.seedGiven { seed = caseSeed }
                    if options.deliveries.isEmpty {
                        delivery = Fuzzer.delivery(of: scenario)
                        scenario = DeliveryModel.ideal.apply(to: scenario, overrides: options.overrides)
                    } else {
                        scenario = delivery.apply(to: scenario, overrides: options.overrides)
                    }
                } else {
                    scenario = delivery.apply(to: scenario, overrides: options.overrides)
                }
                return run(scenario, source: source, seed: seed, format: options.format, delivery: delivery)
            } catch {
                return usage(error.reason)
            }
        case "check":
            guard options.fieldRuns >= 1 else { return usage("--field-runs must be at least 1") }
            return check(
                source: source, seed: options.seed, format: options.format, strikeLimit: options.strikeLimit,
                deliveries: options.deliveries.isEmpty ? DeliveryModel.allCases : options.deliveries,
                fieldRuns: options.fieldRuns, overrides: options.overrides, options: options)
        case "fuzz":
            guard options.count >= 0 else { return usage("--count must not be negative") }
            return fuzz(seed: options.seed, count: options.count, source: source, format: options.format, options: options)
        default:
            return usage("unknown command '\(command)' (run, check, fuzz)")
        }
    }

    static func usage(_ reason: String) -> PushSimOutput {
        PushSimOutput(stdout: [], stderr: [reason], exitCode: exitUsage)
    }

    /// Exit codes.
    public static let exitOK: Int32 = 0
    /// A rule was broken (or an expected outcome was not met).
    public static let exitViolation: Int32 = 1
    /// Bad arguments or unreadable input.
    public static let exitUsage: Int32 = 64

    /// Output format.
    public enum Format: String, Sendable, Hashable {
        /// JSON Lines (default when piped).
        case json
        /// Aligned text for people.
        case text
    }

    /// The case seed of a `fuzz:SEED` argument.
    static func fuzzCaseSeed(_ argument: String) -> UInt64? {
        argument.hasPrefix("fuzz:") ? UInt64(argument.dropFirst(5)) : nil
    }

    /// `astra-pushsim run SCENARIO` plus the arguments of ``PushSimOptions/replayArguments``
    /// (default: the preset policy): the command that replays a printed failure.
    static func replayCommand(_ scenario: String, _ options: PushSimOptions, extra: [String] = []) -> String {
        let client = options.replayArguments.isEmpty ? ["--policy", options.policy.rawValue] : options.replayArguments
        return ShellWords.join(["astra-pushsim", "run", scenario] + extra + client)
    }

    /// Resolves a scenario argument: a built-in name, `fuzz:SEED`, or a JSON file read by `load`.
    public static func scenario(_ argument: String, load: (String) throws -> [UInt8]) throws(ScenarioError) -> Scenario
    {
        if let builtIn = BuiltInScenarios.named(argument) { return builtIn }
        if let seed = fuzzCaseSeed(argument) { return Fuzzer.scenario(caseSeed: seed) }
        let bytes: [UInt8]
        do {
            bytes = try load(argument)
        } catch {
            throw ScenarioError(
                .invalidJSON,
                "\(argument): not a built-in scenario (\(BuiltInScenarios.names.joined(separator: ", "))), and \(error)"
            )
        }
        return try Scenario.decode(json: bytes)
    }

    /// `run SCENARIO`: the timeline and a verdict line.
    public static func run<S: PolicySource>(
        _ scenario: Scenario, source: S, seed: UInt64, format: Format, delivery: DeliveryModel = .ideal
    ) -> PushSimOutput {
        let report = ScenarioRunner.run(scenario, source: source, seed: seed)
        var out = PushSimOutput()
        for (t, event) in report.timeline { out.stdout.append(render(event.jsonLine(t: t), format)) }
        out.stdout.append(render(verdictLine(report, delivery: delivery), format))
        if let fault = report.clientFailure { out.stderr.append("client '\(report.policy)': \(fault.detail)") }
        if !report.passed {
            out.stderr.append("\(report.scenario) with \(report.policy): " + summary(report))
            out.exitCode = exitViolation
        }
        return out
    }

    /// `run` with a preset policy.
    public static func run(_ scenario: Scenario, policy: PolicyChoice, seed: UInt64, format: Format) -> PushSimOutput {
        run(scenario, source: policy, seed: seed, format: format)
    }

    /// `check`: every built-in under each delivery model (ideal: one run each; field: `fieldRuns`
    /// seeds each); exit 1 naming the rules broken.
    public static func check<S: PolicySource>(
        source: S, seed: UInt64, format: Format, strikeLimit: Int? = nil,
        deliveries: [DeliveryModel] = DeliveryModel.allCases, fieldRuns: Int = 20,
        overrides: DeliveryOverrides = DeliveryOverrides(), options: PushSimOptions = PushSimOptions()
    ) -> PushSimOutput {
        var out = PushSimOutput()
        var rules = Set<RuleID>()
        var failed: [String] = []
        var count = 0
        var clientFailure: ClientFault?
        func prepared(_ builtIn: Scenario, _ delivery: DeliveryModel) -> Scenario {
            var scenario = builtIn
            if let strikeLimit { scenario.settings.strikeThreshold = strikeLimit }
            return delivery.apply(to: scenario, overrides: overrides)
        }
        runs: for delivery in deliveries {
            for builtIn in BuiltInScenarios.all {
                if clientFailure != nil { break runs }
                count += 1
                let scenario = prepared(builtIn, delivery)
                if delivery == .ideal {
                    let report = ScenarioRunner.run(scenario, source: source, seed: seed)
                    out.stdout.append(render(verdictLine(report, event: "scenario", delivery: delivery), format))
                    rules.formUnion(report.rulesBroken)
                    if !report.passed { failed.append(report.scenario) }
                    clientFailure = report.clientFailure
                } else {
                    let field = ScenarioRunner.runField(scenario, source: source, seed: seed, runs: fieldRuns)
                    out.stdout.append(render(fieldLine(field, policy: source.name, options: options), format))
                    rules.formUnion(field.rules)
                    if !field.passed { failed.append("\(field.scenario)@\(delivery.rawValue)") }
                    clientFailure = field.clientFailure
                }
            }
        }
        let names = rules.sorted().map(\.rawValue)
        var line = JSONLine(event: "verdict", t: 0)
        line.add("command", "check")
        line.add("policy", source.name)
        line.add("ok", failed.isEmpty)
        line.add("delivery", deliveries.map(\.rawValue))
        line.add("scenarios", count)
        line.add("failed", failed)
        line.add("rules", names)
        if let clientFailure { line.add("client_error", clientFailure.detail) }
        out.stdout.append(render(line.string, format))
        if let clientFailure {
            out.stderr.append("client '\(source.name)': \(clientFailure.detail) (check stopped)")
        }
        if !failed.isEmpty {
            out.exitCode = exitViolation
            let broken = names.isEmpty ? "no rule (outcomes differ)" : names.joined(separator: ", ")
            out.stderr.append(
                "check: policy \(source.name) broke \(broken) in \(failed.count) of \(count) scenarios: \(failed.joined(separator: ", "))"
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

    /// `fuzz --seed S --count N`.
    public static func fuzz<S: PolicySource>(
        seed: UInt64, count: Int, source: S, format: Format, options: PushSimOptions = PushSimOptions()
    ) -> PushSimOutput {
        let report = Fuzzer.run(seed: seed, count: count, source: source)
        var out = PushSimOutput()
        for failure in report.failures {
            var line = JSONLine(event: "fuzz_failure", t: failure.violations.first?.t ?? 0)
            line.add("index", failure.index)
            line.add("scenario", "fuzz:\(failure.caseSeed)")
            line.add("delivery", failure.delivery.rawValue)
            line.add("seed", String(failure.caseSeed))
            line.add("rules", Array(Set(failure.violations.map(\.rule))).sorted().map(\.rawValue))
            line.add("kinds", failure.violations.map(\.kind.rawValue))
            line.add("replay", replayCommand("fuzz:\(failure.caseSeed)", options))
            out.stdout.append(render(line.string, format))
        }
        var line = JSONLine(event: "verdict", t: 0)
        line.add("command", "fuzz")
        line.add("policy", source.name)
        line.add("seed", String(seed))
        line.add("count", count)
        line.add("events", report.events)
        line.add("failing_cases", report.failingCases)
        line.add("ok", report.failingCases == 0)
        if let fault = report.clientFailure { line.add("client_error", fault.detail) }
        out.stdout.append(render(line.string, format))
        if let fault = report.clientFailure {
            out.stderr.append("client '\(source.name)': \(fault.detail) (fuzz stopped)")
        }
        if report.failingCases > 0 {
            out.exitCode = exitViolation
            out.stderr.append(
                "fuzz: \(report.failingCases) of \(count) cases broke an invariant; each fuzz_failure line's replay command reproduces it"
            )
        }
        return out
    }

    /// `fuzz` with a preset policy.
    public static func fuzz(seed: UInt64, count: Int, policy: PolicyChoice, format: Format) -> PushSimOutput {
        var options = PushSimOptions()
        options.policy = policy
        return fuzz(seed: seed, count: count, source: policy, format: format, options: options)
    }

    /// One `check` line for a scenario under the field model.
    static func fieldLine(_ field: FieldCheck, policy: String, options: PushSimOptions = PushSimOptions()) -> String {
        var line = JSONLine(event: "scenario", t: 0)
        line.add("scenario", field.scenario)
        line.add("policy", policy)
        line.add("delivery", DeliveryModel.field.rawValue)
        line.add("ok", field.passed)
        line.add("runs", field.runs)
        line.add("failed_runs", field.failedRuns)
        line.add("violations", field.violations)
        line.add("rules", field.rules.sorted().map(\.rawValue))
        line.add("kinds", field.kinds.sorted())
        line.add(
            "outcomes",
            [CallOutcome.connected, .failedOver, .cancelled, .pending].compactMap { outcome in
                field.outcomes[outcome].map { "\(outcome.rawValue):\($0)" }
            })
        line.add("excused", field.excused)
        if let seed = field.firstFailedSeed {
            line.add("first_failed_seed", String(seed))
            line.add(
                "replay", replayCommand(field.scenario, options, extra: ["--delivery", "field", "--seed", String(seed)]))
        }
        if let fault = field.clientFailure { line.add("client_error", fault.detail) }
        return line.string
    }

    static func verdictLine(_ report: ScenarioReport, event: String = "verdict", delivery: DeliveryModel = .ideal)
        -> String
    {
        var line = JSONLine(event: event, t: report.endTime)
        line.add("scenario", report.scenario)
        line.add("policy", report.policy)
        line.add("delivery", delivery.rawValue)
        line.add("ok", report.passed)
        line.add("violations", report.violations.count)
        line.add("rules", report.rulesBroken.map(\.rawValue))
        line.add("kinds", Array(Set(report.violations.map(\.kind.rawValue))).sorted())
        line.add("outcomes", report.outcomes.map(\.rawValue))
        if let expected = report.expected { line.add("expected", expected.map(\.rawValue)) }
        if report.excusedCount > 0 { line.add("excused", report.excusedCount) }
        if let fault = report.clientFailure { line.add("client_error", fault.detail) }
        line.add("events", report.events)
        return line.string
    }

    static func summary(_ report: ScenarioReport) -> String {
        var parts: [String] = []
        if !report.violations.isEmpty {
            parts.append("broke " + report.rulesBroken.map(\.rawValue).joined(separator: ", "))
        }
        if !report.expectationMet {
            parts.append(
                "outcomes \(report.outcomes.map(\.rawValue)) != expected \((report.expected ?? []).map(\.rawValue))")
        }
        return parts.joined(separator: "; ")
    }

    /// Text format: `t` right-aligned, the event name, then the other fields as key=value.
    package static func render(_ json: String, _ format: Format) -> String {
        guard format == .text else { return json }
        var body = Substring(json.dropFirst().dropLast())
        var fields: [String] = []
        var current = ""
        var inString = false
        var depth = 0
        while let ch = body.first {
            body = body.dropFirst()
            if ch == "\"" { inString.toggle(); continue }
            if !inString && ch == "[" { depth += 1 }
            if !inString && ch == "]" { depth -= 1 }
            if !inString && depth == 0 && ch == "," {
                fields.append(current)
                current = ""
                continue
            }
            current.append(ch == ":" && !inString && depth == 0 ? "=" : ch)
        }
        fields.append(current)
        let event = fields.first.map { String($0.dropFirst(6)) } ?? ""
        let t = fields.count > 1 ? String(fields[1].dropFirst(2)) : ""
        let pad = String(repeating: " ", count: max(0, 8 - t.count))
        return pad + t + " ms  " + event + "  " + fields.dropFirst(2).joined(separator: " ")
    }
}

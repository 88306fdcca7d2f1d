import PushKitEmu

/// The `astra-pushsim` commands (docs/man/astra-pushsim.md), independent of argument parsing.
package enum PushSimCommand {
    /// Runs `command` (`run`, `check`, `fuzz`) with the preset policy of `options`; `scenario` is
    /// `run`'s argument; `load` reads a scenario file (`-` = standard input, the caller decides).
    /// `emit` gets each stdout line the moment it is made (the tool prints and flushes it: a
    /// client that hangs, or a `timeout` that stops a `check`, leaves every line made so far).
    public static func execute(
        _ command: String, scenario argument: String?, options: PushSimOptions,
        load: (String) throws -> [UInt8], emit: (String) -> Void = { _ in }
    ) -> PushSimOutput {
        execute(command, scenario: argument, options: options, source: options.policy, load: load, emit: emit)
    }

    /// Runs `command` with the policies of `source` (a preset, a Swift policy, a client process).
    public static func execute<S: PolicySource>(
        _ command: String, scenario argument: String?, options: PushSimOptions, source: S,
        load: (String) throws -> [UInt8], emit: (String) -> Void = { _ in }
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
                return run(
                    scenario, source: source, seed: seed, format: options.format, delivery: delivery, emit: emit)
            } catch {
                return usage(error.reason)
            }
        case "check":
            guard options.fieldRuns >= 1 else { return usage("--field-runs must be at least 1") }
            return check(
                source: source, seed: options.seed, format: options.format, strikeLimit: options.strikeLimit,
                deliveries: options.deliveries.isEmpty ? DeliveryModel.allCases : options.deliveries,
                fieldRuns: options.fieldRuns, overrides: options.overrides, options: options, emit: emit)
        case "fuzz":
            guard options.count >= 0 else { return usage("--count must not be negative") }
            return fuzz(
                seed: options.seed, count: options.count, source: source, format: options.format, options: options,
                emit: emit)
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

    /// `run SCENARIO`: the timeline, line by line as the run makes it, and a verdict line. A
    /// client that broke the protocol gets one stderr line saying what and where the run stopped.
    public static func run<S: PolicySource>(
        _ scenario: Scenario, source: S, seed: UInt64, format: Format, delivery: DeliveryModel = .ideal,
        emit: (String) -> Void = { _ in }
    ) -> PushSimOutput {
        var out = PushSimOutput()
        let report = ScenarioRunner.run(scenario, source: source, seed: seed) { t, event, names in
            out.print(render(event.jsonLine(t: t, uuidNames: names), format), emit)
        }
        out.print(render(verdictLine(report, delivery: delivery), format), emit)
        if let fault = report.clientFailure {
            out.stderr.append(
                "client '\(report.policy)': \(fault.detail) (\(report.scenario) stopped at \(report.endTime) ms)")
            out.exitCode = exitViolation
        } else if !report.passed {
            out.stderr.append("\(report.scenario) with \(report.policy): " + summary(report))
            out.exitCode = exitViolation
        }
        return out
    }

    /// `run` with a preset policy.
    public static func run(_ scenario: Scenario, policy: PolicyChoice, seed: UInt64, format: Format) -> PushSimOutput {
        run(scenario, source: policy, seed: seed, format: format)
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

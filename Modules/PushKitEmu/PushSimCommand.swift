/// The `astra-pushsim` commands (docs/man/astra-pushsim.md), independent of argument parsing.
public enum PushSimCommand {
    /// Runs `command` (`run`, `check`, `fuzz`); `scenario` is `run`'s argument; `load` reads a
    /// scenario file (`-` = standard input, the caller decides).
    public static func execute(
        _ command: String, scenario argument: String?, options: PushSimOptions,
        load: (String) throws -> [UInt8]
    ) -> PushSimOutput {
        switch command {
        case "run":
            guard let argument else { return usage("run needs a SCENARIO (built-in name or JSON file)") }
            do {
                var scenario = try scenario(argument, load: load)
                if let limit = options.strikeLimit { scenario.settings.strikeThreshold = limit }
                return run(scenario, policy: options.policy, seed: options.seed, format: options.format)
            } catch {
                return usage(error.reason)
            }
        case "check":
            return check(
                policy: options.policy, seed: options.seed, format: options.format,
                strikeLimit: options.strikeLimit)
        case "fuzz":
            guard options.count >= 0 else { return usage("--count must not be negative") }
            return fuzz(seed: options.seed, count: options.count, policy: options.policy, format: options.format)
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

    /// Resolves a scenario argument: a built-in name, `fuzz:SEED`, or a JSON file read by `load`.
    public static func scenario(_ argument: String, load: (String) throws -> [UInt8]) throws(ScenarioError) -> Scenario
    {
        if let builtIn = BuiltInScenarios.named(argument) { return builtIn }
        if argument.hasPrefix("fuzz:"), let seed = UInt64(argument.dropFirst(5)) {
            return Fuzzer.scenario(caseSeed: seed)
        }
        let bytes: [UInt8]
        do {
            bytes = try load(argument)
        } catch {
            throw ScenarioError(
                .invalidJSON,
                "\(argument): not a built-in scenario (\(BuiltInScenarios.names.joined(separator: ", "))), and \(error)")
        }
        return try Scenario.decode(json: bytes)
    }

    /// `run SCENARIO`: the timeline and a verdict line.
    public static func run(_ scenario: Scenario, policy: PolicyChoice, seed: UInt64, format: Format) -> PushSimOutput {
        let report = ScenarioRunner.run(scenario, policy: policy, seed: seed)
        var out = PushSimOutput()
        for (t, event) in report.timeline { out.stdout.append(render(event.jsonLine(t: t), format)) }
        out.stdout.append(render(verdictLine(report), format))
        if !report.passed {
            out.stderr.append("\(report.scenario) with \(report.policy): " + summary(report))
            out.exitCode = exitViolation
        }
        return out
    }

    /// `check`: every built-in; exit 1 naming the rules broken.
    public static func check(policy: PolicyChoice, seed: UInt64, format: Format, strikeLimit: Int? = nil)
        -> PushSimOutput
    {
        let reports = BuiltInScenarios.all.map { builtIn in
            var scenario = builtIn
            if let strikeLimit { scenario.settings.strikeThreshold = strikeLimit }
            return ScenarioRunner.run(scenario, policy: policy, seed: seed)
        }
        var out = PushSimOutput()
        var rules = Set<RuleID>()
        var failed: [String] = []
        for report in reports {
            out.stdout.append(render(verdictLine(report, event: "scenario"), format))
            rules.formUnion(report.rulesBroken)
            if !report.passed { failed.append(report.scenario) }
        }
        let names = rules.sorted().map(\.rawValue)
        var line = JSONLine(event: "verdict", t: 0)
        line.add("command", "check")
        line.add("policy", policy.rawValue)
        line.add("ok", failed.isEmpty)
        line.add("scenarios", reports.count)
        line.add("failed", failed)
        line.add("rules", names)
        out.stdout.append(render(line.string, format))
        if !failed.isEmpty {
            out.exitCode = exitViolation
            let broken = names.isEmpty ? "no rule (outcomes differ)" : names.joined(separator: ", ")
            out.stderr.append(
                "check: policy \(policy.rawValue) broke \(broken) in \(failed.count) of \(reports.count) scenarios: \(failed.joined(separator: ", "))"
            )
        }
        return out
    }

    /// `fuzz --seed S --count N`.
    public static func fuzz(seed: UInt64, count: Int, policy: PolicyChoice, format: Format) -> PushSimOutput {
        let report = Fuzzer.run(seed: seed, count: count, policy: policy)
        var out = PushSimOutput()
        for failure in report.failures {
            var line = JSONLine(event: "fuzz_failure", t: failure.violations.first?.t ?? 0)
            line.add("index", failure.index)
            line.add("scenario", "fuzz:\(failure.caseSeed)")
            line.add("rules", Array(Set(failure.violations.map(\.rule))).sorted().map(\.rawValue))
            line.add("kinds", failure.violations.map(\.kind.rawValue))
            out.stdout.append(render(line.string, format))
        }
        var line = JSONLine(event: "verdict", t: 0)
        line.add("command", "fuzz")
        line.add("policy", policy.rawValue)
        line.add("seed", String(seed))
        line.add("count", count)
        line.add("events", report.events)
        line.add("failing_cases", report.failingCases)
        line.add("ok", report.failingCases == 0)
        out.stdout.append(render(line.string, format))
        if report.failingCases > 0 {
            out.exitCode = exitViolation
            out.stderr.append(
                "fuzz: \(report.failingCases) of \(count) cases broke an invariant; replay with `astra-pushsim run fuzz:SEED`"
            )
        }
        return out
    }

    static func verdictLine(_ report: ScenarioReport, event: String = "verdict") -> String {
        var line = JSONLine(event: event, t: report.endTime)
        line.add("scenario", report.scenario)
        line.add("policy", report.policy)
        line.add("ok", report.passed)
        line.add("violations", report.violations.count)
        line.add("rules", report.rulesBroken.map(\.rawValue))
        line.add("kinds", Array(Set(report.violations.map(\.kind.rawValue))).sorted())
        line.add("outcomes", report.outcomes.map(\.rawValue))
        if let expected = report.expected { line.add("expected", expected.map(\.rawValue)) }
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

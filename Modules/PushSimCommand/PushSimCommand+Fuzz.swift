import PushKitEmu

/// `astra-pushsim fuzz`: random scenarios against the invariants.
extension PushSimCommand {
    /// `fuzz --seed S --count N`: a `fuzz_failure` line per failing case the moment it fails
    /// (with the command that replays it), then the verdict.
    public static func fuzz<S: PolicySource>(
        seed: UInt64, count: Int, source: S, format: Format, options: PushSimOptions = PushSimOptions(),
        emit: (String) -> Void = { _ in }
    ) -> PushSimOutput {
        var out = PushSimOutput()
        let report = Fuzzer.run(seed: seed, count: count, source: source) { failure in
            out.print(render(failureLine(failure, options), format), emit)
        }
        var line = JSONLine(event: "verdict", t: 0)
        line.add("command", "fuzz")
        line.add("policy", source.name)
        line.add("seed", String(seed))
        line.add("count", count)
        line.add("cases_run", report.casesRun)
        line.add("events", report.events)
        line.add("failing_cases", report.failingCases)
        line.add("ok", report.failingCases == 0)
        if let fault = report.clientFailure { line.add("client_error", fault.detail) }
        out.print(render(line.string, format), emit)
        // The case the client broke is reported by the client line, not as a broken invariant.
        let broken = report.failingCases - (report.clientFailure == nil ? 0 : 1)
        if report.failingCases > 0 { out.exitCode = exitViolation }
        if broken > 0 {
            out.stderr.append(
                "fuzz: \(broken) of \(report.casesRun) cases broke an invariant; each fuzz_failure line's replay command reproduces it"
            )
        }
        if let fault = report.clientFailure {
            out.stderr.append(
                "client '\(source.name)': \(fault.detail) (fuzz stopped at case \(report.casesRun - 1) of \(count))")
        }
        return out
    }

    /// One `fuzz_failure` line: the case, its delivery model and seed, what broke, its replay.
    static func failureLine(_ failure: FuzzFailure, _ options: PushSimOptions) -> String {
        var line = JSONLine(event: "fuzz_failure", t: failure.violations.first?.t ?? 0)
        line.add("index", failure.index)
        line.add("scenario", "fuzz:\(failure.caseSeed)")
        line.add("delivery", failure.delivery.rawValue)
        line.add("seed", String(failure.caseSeed))
        line.add("rules", Array(Set(failure.violations.map(\.rule))).sorted().map(\.rawValue))
        line.add("kinds", failure.violations.map(\.kind.rawValue))
        line.add("replay", replayCommand("fuzz:\(failure.caseSeed)", options))
        return line.string
    }

    /// `fuzz` with a preset policy.
    public static func fuzz(seed: UInt64, count: Int, policy: PolicyChoice, format: Format) -> PushSimOutput {
        var options = PushSimOptions()
        options.policy = policy
        return fuzz(seed: seed, count: count, source: policy, format: format, options: options)
    }
}

extension ToolSpecs {
    /// `astra-pushsim`: exercise the push wake-decision rules (PUSH-RULES.md) in virtual time.
    public static let pushsim = CommandSpec(
        name: "astra-pushsim",
        abstract: "Exercise PushKit/CallKit wake-decision rules in virtual time.",
        subcommands: [
            CommandSpec(
                name: "run",
                abstract: "Run one scenario and print its timeline, with the verdict at the end.",
                arguments: [
                    ArgumentSpec(
                        "scenario", help: "A built-in scenario name or a scenario JSON file ('-' = standard input).")
                ],
                options: [
                    .value(
                        "strike-limit", valueName: "n", kind: .int, default: "3",
                        help: "Unreported pushes before iOS stops delivering (R2).")
                ] + [CommonOptions.seed] + CommonOptions.output + CommonOptions.diagnostics(sipTrace: false),
                examples: [Example("Replay the killed-app scenario:", "astra-pushsim run killed | jq .")]),
            CommandSpec(
                name: "check",
                abstract: "Run every built-in scenario; exit 1 on any rule violation.",
                options: CommonOptions.output + CommonOptions.diagnostics(sipTrace: false)),
            CommandSpec(
                name: "fuzz",
                abstract: "Check random scenarios against the invariants.",
                options: [
                    .value("seed", valueName: "n", kind: .int, default: "1", help: "Seed of the first scenario."),
                    .value("count", valueName: "n", kind: .int, default: "1000", help: "How many scenarios to run."),
                ] + CommonOptions.output + CommonOptions.diagnostics(sipTrace: false),
                examples: [Example("Run 10000 random scenarios:", "astra-pushsim fuzz --seed 7 --count 10000")]),
        ],
        exitStatuses: [
            ExitStatusDoc(.success, "No rule was violated."),
            ExitStatusDoc(.failure, "A rule was violated (the verdict names it)."),
            usageStatus, softwareStatus,
        ],
        seeAlso: seeAlso(except: "astra-pushsim"))
}

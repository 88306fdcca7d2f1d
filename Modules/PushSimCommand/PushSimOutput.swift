import PushKitEmu

/// What `astra-pushsim` produced: stdout lines, stderr lines, exit code. The tool main only
/// prints them; everything else lives here so it is testable without a process.
package struct PushSimOutput: Sendable, Hashable {
    /// JSON Lines (or text) for stdout.
    public var stdout: [String] = []
    /// Diagnostics for stderr, one line each, without the `astra-pushsim: ` prefix (the tool adds it).
    public var stderr: [String] = []
    /// 0 ok, 1 violation, 64 usage (TOOLS.md, sysexits EX_USAGE).
    public var exitCode: Int32 = 0

    public init(stdout: [String] = [], stderr: [String] = [], exitCode: Int32 = 0) {
        self.stdout = stdout
        self.stderr = stderr
        self.exitCode = exitCode
    }

    /// Adds a stdout line and hands it to `emit` at once (the tool prints it then: a line per
    /// step or scenario, never all at the end).
    package mutating func print(_ line: String, _ emit: (String) -> Void) {
        stdout.append(line)
        emit(line)
    }

    /// Whether this is a usage error (bad arguments, unknown or unreadable scenario): exit 64.
    public var isUsageError: Bool { exitCode == PushSimCommand.exitUsage }
}

/// The options every `astra-pushsim` command takes, already parsed.
package struct PushSimOptions: Sendable, Hashable {
    /// `--policy naive|correct` (default correct).
    public var policy: PolicyChoice = .correct
    /// `--seed N`: tokens and delivery draws in `run`/`check`, the case sequence in `fuzz`
    /// (default 1; any `UInt64`).
    public var seed: UInt64 = 1
    /// Whether `--seed` was given: `run fuzz:SEED` otherwise runs with the case's own seed, as
    /// `fuzz` did, so the replay is the case.
    public var seedGiven = false
    /// The arguments that name the client under test and the delivery overrides, as the user
    /// typed them, for the replay commands the tool prints (`--policy naive`, `--client-cmd CMD`,
    /// `--strike-limit N`, `--apns-delay SPEC` …). Empty: `--policy` of ``policy``.
    public var replayArguments: [String] = []
    /// `fuzz --count N` (default 1000).
    public var count = 1_000
    /// Output format.
    public var format: PushSimCommand.Format = .json
    /// `--strike-limit N`: overrides ``EmulatorSettings/strikeThreshold`` (R2).
    public var strikeLimit: Int?
    /// `--delivery ideal|field|both`: empty = the command's default (`run`: ideal, `check`: both).
    public var deliveries: [DeliveryModel] = []
    /// `check --field-runs N`: seeds per scenario under the field model (default 20).
    public var fieldRuns = 20
    /// `--apns-delay SPEC`, `--cold-launch SPEC`, `--loss-percent N`.
    public var overrides = DeliveryOverrides()

    public init() {}
}

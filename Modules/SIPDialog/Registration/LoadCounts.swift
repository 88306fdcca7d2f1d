/// The counts of a load run (`astra-register --load`), one set for the progress line, the
/// summary and their JSON, so that what a person watches and what the run reports at its end
/// are the same figures:
///
/// - `planned`: the lines the run means to start — the file's lines, or with `--duration` and
///   `--rate` the rate × the duration; nil when the run cycles for a duration without a rate;
/// - `started` = `done` + `abandoned` + `running`;
/// - `done` = `registered` + `failed`;
/// - `notStarted` = `planned` − `started` (nil when nothing was planned).
///
/// A pure value: ``LoadRunControl`` keeps it up to date as lines start and end.
package struct LoadCounts: Sendable, Hashable {
    public var planned: Int?
    public var started: Int
    public var registered: Int
    public var failed: Int
    /// In flight when the run stopped (signal, run timeout): neither registered nor failed.
    public var abandoned: Int
    /// In flight now.
    public var running: Int

    public init(planned: Int?, started: Int = 0, registered: Int = 0, failed: Int = 0, abandoned: Int = 0,
                running: Int = 0) {
        self.planned = planned
        self.started = started
        self.registered = registered
        self.failed = failed
        self.abandoned = abandoned
        self.running = running
    }

    /// Finished lines: registered or failed.
    public var done: Int { registered + failed }

    /// Planned lines that never started (a stop came first); nil when nothing was planned.
    public var notStarted: Int? { planned.map { max(0, $0 - started) } }

    /// Whether the counts add up (`started` = `done` + `abandoned` + `running`).
    public var isConsistent: Bool { started == done + abandoned + running }
}

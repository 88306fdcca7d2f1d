/// The run control of a load run (`astra-register --load`), apart from how lines are driven:
/// when the next line may start (`--concurrency`, `--rate N/s`, `--duration`), when the whole
/// run must end (`--run-timeout`, SIGINT/SIGTERM), and the progress figures (done/total, rate,
/// failures, median latency) once a second. Pure, with time as an input, so the UDP loop over
/// ``RegistrationLoad`` and the endpoint path share it — and so can any other load engine.
///
/// A line's own bound (`--timeout`) is the engine's: it owns the line's timers.
package struct LoadRunControl: Sendable {
    public struct Settings: Sendable, Hashable {
        /// Lines in flight at once.
        public var concurrency: Int
        /// Lines started per second at most (nil: as fast as concurrency allows).
        public var rate: Double?
        /// The whole run's bound: then no new line starts and running ones are abandoned.
        public var runTimeout: Duration?
        /// Keep starting lines (cycling through the file) until this much time has passed;
        /// nil: every line once.
        public var duration: Duration?
        /// Lines in the file.
        public var lines: Int
        /// How often ``tick(now:)`` reports progress.
        public var progressInterval: Duration = .seconds(1)

        public init(concurrency: Int, lines: Int, rate: Double? = nil, runTimeout: Duration? = nil,
                    duration: Duration? = nil) {
            self.concurrency = max(1, concurrency)
            self.lines = lines
            self.rate = rate
            self.runTimeout = runTimeout
            self.duration = duration
        }
    }

    /// Why no new line starts any more.
    public enum StopReason: String, Sendable, Hashable {
        /// Every line of the file was started (and, once ``isDone``, finished).
        case completed
        /// `--duration` is over.
        case duration
        /// `--run-timeout` was reached (running lines are abandoned).
        case runTimeout = "run_timeout"
        /// SIGINT/SIGTERM (running lines are abandoned).
        case signal
    }

    /// The figures of a progress report or summary: the run's ``LoadCounts`` (one set for the
    /// progress line, the summary and the JSON) and the rates.
    public struct Progress: Sendable, Hashable {
        public var counts: LoadCounts
        public var elapsed: Duration
        /// Registered lines per second since the start.
        public var ratePerSecond: Double
        /// Median latency of the successful lines, milliseconds.
        public var p50Milliseconds: Double?

        /// Finished lines (registered or failed).
        public var done: Int { counts.done }
        /// Lines planned (``LoadCounts/planned``).
        public var total: Int? { counts.planned }
        public var failures: Int { counts.failed }
        public var running: Int { counts.running }
    }

    public let settings: Settings
    public private(set) var started = 0
    public private(set) var finished = 0
    public private(set) var failures = 0
    public private(set) var running = 0
    /// Started lines dropped at a stop (signal, run timeout) before their outcome.
    public private(set) var abandoned = 0
    public private(set) var stopReason: StopReason?
    private let start: Duration
    private var nextProgress: Duration
    private var latencies: [Double] = []

    public init(settings: Settings, now: Duration) {
        self.settings = settings
        start = now
        nextProgress = now + settings.progressInterval
    }

    /// True once a stop was decided and nothing runs any more.
    public var isDone: Bool { running == 0 && stopReason != nil }

    /// True when the stop abandons running lines (a signal, the run timeout).
    public var abandonsRunning: Bool { stopReason == .signal || stopReason == .runTimeout }

    /// Asks to start one line now; counts it as started when the answer is yes.
    public mutating func admit(now: Duration) -> Bool {
        checkDeadlines(now: now)
        guard stopReason == nil, running < settings.concurrency else { return false }
        if settings.duration == nil && started >= settings.lines {
            stopReason = .completed
            return false
        }
        if let rate = settings.rate, started >= allowedStarts(rate: rate, now: now) { return false }
        started += 1
        running += 1
        return true
    }

    /// A started line ended (`latency` for a success); a line abandoned at a stop passes `abandoned`.
    public mutating func finished(ok: Bool, latency: Duration?, abandoned: Bool = false) {
        running = max(0, running - 1)
        guard !abandoned else {
            self.abandoned += 1
            return
        }
        finished += 1
        if ok {
            if let latency { latencies.append(Self.milliseconds(latency)) }
        } else {
            failures += 1
        }
    }

    /// Takes back one ``admit(now:)`` whose line could not start after all: neither started
    /// nor running (and not abandoned: it never ran).
    public mutating func unstart() {
        started = max(0, started - 1)
        running = max(0, running - 1)
    }

    /// SIGINT/SIGTERM: no new line; running ones are to be abandoned.
    public mutating func stop(_ reason: StopReason) {
        if stopReason == nil || stopReason == .completed || stopReason == .duration { stopReason = reason }
    }

    /// Fires what is due at `now`: the run timeout, the end of `--duration`, and a progress
    /// report (returned) every ``Settings/progressInterval``.
    public mutating func tick(now: Duration) -> Progress? {
        checkDeadlines(now: now)
        guard now >= nextProgress else { return nil }
        while nextProgress <= now { nextProgress += settings.progressInterval }
        return progress(now: now)
    }

    /// The earliest time something here is due: the next rate slot (when a line could start),
    /// the run timeout, the end of the duration, the next progress report.
    public func nextDeadline(now: Duration) -> Duration {
        var next = nextProgress
        if let runTimeout = settings.runTimeout, stopReason == nil { next = min(next, start + runTimeout) }
        if let duration = settings.duration, stopReason == nil { next = min(next, start + duration) }
        if let rate = settings.rate, stopReason == nil, running < settings.concurrency {
            let slot = start + .seconds(Double(started) / rate)
            next = min(next, max(now, slot))
        }
        return next
    }

    /// Lines planned: the file's lines; with `--duration`, rate × duration (nil without a rate:
    /// the run cycles through the file for as long as it lasts).
    public var planned: Int? {
        guard let duration = settings.duration else { return settings.lines }
        return settings.rate.map { Int(($0 * Self.milliseconds(duration) / 1000).rounded(.down)) }
    }

    /// The counts now: every figure a report shows comes from here.
    public var counts: LoadCounts {
        LoadCounts(planned: planned, started: started, registered: finished - failures, failed: failures,
                   abandoned: abandoned, running: running)
    }

    /// The figures now.
    public func progress(now: Duration) -> Progress {
        let elapsed = now - start
        let seconds = Self.milliseconds(elapsed) / 1000
        return Progress(
            counts: counts, elapsed: elapsed,
            ratePerSecond: seconds > 0 ? Double(finished - failures) / seconds : 0, p50Milliseconds: median)
    }

    /// Median of the successful lines' latencies (the lower middle value).
    public var median: Double? {
        guard !latencies.isEmpty else { return nil }
        let sorted = latencies.sorted()
        return sorted[(sorted.count - 1) / 2]
    }

    /// Every latency recorded so far (successes), milliseconds.
    public var successLatencies: [Double] { latencies }

    private mutating func checkDeadlines(now: Duration) {
        if let runTimeout = settings.runTimeout, now - start >= runTimeout { stop(.runTimeout) }
        if let duration = settings.duration, now - start >= duration, stopReason == nil { stopReason = .duration }
    }

    /// RFC-free token arithmetic: `rate` starts per second from the start, the first at once.
    private func allowedStarts(rate: Double, now: Duration) -> Int {
        Int((rate * Self.milliseconds(now - start) / 1000).rounded(.down)) + 1
    }

    static func milliseconds(_ d: Duration) -> Double {
        Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
    }
}

/// The paced media clock's arithmetic: frame *n* is due at `start + n × interval` (absolute
/// deadlines, so wake-up lateness never accumulates into drift), with an optional rate
/// correction in parts per million to follow another clock (e.g. a sound card's), and a
/// resynchronisation when the process falls too far behind (after a stall, frames are skipped
/// instead of being sent in a burst).
///
/// Pure value: the caller sleeps on its injected `Clock` until ``nextDeadline`` and calls
/// ``frameDue(now:)``.
package struct FramePacer: Sendable, Hashable {
    public let interval: Duration
    /// Frames we may send late in a burst before skipping ahead.
    public var maxBurst: Int
    /// Rate correction: positive = send slower. Applied from the frame where it was set.
    public private(set) var correctionPPM: Double = 0
    private var origin: Duration = .zero
    private var originFrame: Int64 = 0
    /// Index of the next frame to send.
    public private(set) var frameIndex: Int64 = 0
    /// Frames skipped by resynchronisation.
    public private(set) var skippedFrames: Int64 = 0

    /// `start` is the clock offset (from any reference) of frame 0.
    public init(interval: Duration = .milliseconds(20), start: Duration = .zero, maxBurst: Int = 3) {
        self.interval = interval
        self.origin = start
        self.maxBurst = maxBurst
    }

    private var intervalNanoseconds: Double {
        let c = interval.components
        return (Double(c.seconds) * 1e9 + Double(c.attoseconds / 1_000_000_000)) * (1 + correctionPPM / 1_000_000)
    }

    /// Deadline of frame `n`, rounded to the nanosecond (exact when no correction is set).
    public func deadline(of n: Int64) -> Duration {
        origin + .nanoseconds(Int64((intervalNanoseconds * Double(n - originFrame)).rounded()))
    }

    public var nextDeadline: Duration { deadline(of: frameIndex) }

    /// Call when woken at `now`: returns how many frames to produce now (0 if early) and
    /// advances. Beyond ``maxBurst`` frames behind, the excess is skipped.
    public mutating func frameDue(now: Duration) -> Int {
        guard now >= nextDeadline else { return 0 }
        var due = 0
        while deadline(of: frameIndex + Int64(due)) <= now { due += 1 }
        if due > maxBurst {
            skippedFrames += Int64(due - maxBurst)
            frameIndex += Int64(due - maxBurst)
            due = maxBurst
        }
        frameIndex += Int64(due)
        return due
    }

    /// Sets the rate correction (clamped to ±1000 ppm) without moving the next deadline.
    public mutating func setCorrection(ppm: Double) {
        let next = nextDeadline
        correctionPPM = max(-1000, min(1000, ppm))
        origin = next
        originFrame = frameIndex
    }
}

/// How regularly frames left: every send time against its frame index and absolute deadline.
///
/// The mean interval is the least-squares slope of send time over frame index (robust to the
/// wake-up jitter of the first and last frames); drift is that slope's deviation from the
/// nominal interval accumulated over the run. Lateness is send time − deadline; with absolute
/// deadlines (`FramePacer`) it stays bounded instead of growing.
public struct PacingStatistics: Sendable, Hashable {
    public private(set) var frames = 0
    public private(set) var firstSend: Duration?
    public private(set) var lastSend: Duration?
    public private(set) var maxLateness: Duration = .zero
    public private(set) var lastLateness: Duration = .zero
    private var sumLateness = 0.0
    private var n = 0.0, sumX = 0.0, sumY = 0.0, sumXY = 0.0, sumXX = 0.0
    private var firstIndex: Int64?

    public init() {}

    /// Records that frame `index`, due at `deadline`, was sent at `sent`.
    public mutating func record(index: Int64, sent: Duration, deadline: Duration) {
        if firstSend == nil { firstSend = sent }
        lastSend = sent
        frames += 1
        let lateness = sent - deadline
        lastLateness = lateness
        if lateness > maxLateness { maxLateness = lateness }
        sumLateness += Self.seconds(lateness)
        let base = firstIndex ?? index
        firstIndex = base
        let x = Double(index - base)
        let y = Self.seconds(sent - (firstSend ?? sent))
        n += 1
        sumX += x
        sumY += y
        sumXY += x * y
        sumXX += x * x
    }

    /// Least-squares mean interval between frames.
    public var meanInterval: Duration? {
        let d = n * sumXX - sumX * sumX
        guard n >= 2, d > 0 else { return nil }
        return .nanoseconds(Int64(((n * sumXY - sumX * sumY) / d * 1e9).rounded()))
    }

    /// Mean send lateness behind the deadlines.
    public var meanLateness: Duration { frames == 0 ? .zero : .nanoseconds(Int64(sumLateness / Double(frames) * 1e9)) }

    /// (mean interval − `nominal`) × (frames − 1): the time error a rate error would accumulate.
    public func drift(nominal: Duration) -> Duration? {
        meanInterval.map { ($0 - nominal) * (frames - 1) }
    }

    private static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
    }
}

/// A histogram's state for one label set: per-bucket counts, sum and count of observations.
///
/// Buckets are upper bounds, increasing; the `+Inf` bucket is implicit (it is `count`). Rendered
/// cumulatively (`_bucket{le}` counts every observation ≤ le), as both exposition formats define
/// a histogram. A NaN observation is ignored (it would poison `_sum` forever).
public struct Histogram: Sendable, Equatable {
    /// Upper bounds, strictly increasing and finite.
    public let bounds: [Double]
    /// Observations that fell in each bucket (not cumulative): `counts[i]` ≤ `bounds[i]` and
    /// > `bounds[i-1]`.
    public private(set) var counts: [UInt64]
    public private(set) var sum: Double = 0
    public private(set) var count: UInt64 = 0

    public init(bounds: [Double]) {
        precondition(!bounds.isEmpty && bounds.allSatisfy(\.isFinite), "histogram bounds must be finite")
        precondition(zip(bounds, bounds.dropFirst()).allSatisfy { $0 < $1 }, "histogram bounds must increase")
        self.bounds = bounds
        counts = Array(repeating: 0, count: bounds.count)
    }

    public mutating func observe(_ value: Double) {
        guard !value.isNaN else { return }
        if let index = bounds.firstIndex(where: { value <= $0 }) { counts[index] += 1 }
        sum += value
        count += 1
    }

    /// The cumulative count of each bound, then `+Inf` (= `count`).
    public var cumulative: [UInt64] {
        var running: UInt64 = 0
        return counts.map { running += $0; return running } + [count]
    }

    /// Bounds from 5 ms to 5 s — the range of a SIP transaction on a working network, from a
    /// LAN round trip to well past a registrar that is struggling (Timer F is 32 s, so a
    /// timeout shows as a failure, not as a duration).
    public static let sipLatencyBounds: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]
}

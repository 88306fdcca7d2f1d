#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A delay the field does not fix: APNs delivery, an app's cold launch or resume (ms).
///
/// Apple gives no APNs delivery SLA, and the public reports are single figures (docs/push-wake-rules.md,
/// "Delivery in the field"), so every delay of the delivery model is a distribution with its
/// parameters as settings. Samples come from the simulation's seeded ``SplitMix64`` (delays are
/// not key material): the same seed gives the same delays. Every sample is clamped to
/// `0...maxSampleMs` so a wild tail cannot overflow virtual time.
public enum DelayDistribution: Sendable, Hashable {
    /// Always `ms` (the ideal, deterministic model; consumes no randomness).
    case fixed(Int64)
    /// Uniform on `minMs...maxMs`.
    case uniform(minMs: Int64, maxMs: Int64)
    /// Log-normal with the given median and 95th percentile (`p95Ms ≥ medianMs > 0`): the shape of
    /// network latencies, heavy right tail. σ = ln(p95 / median) / z₀.₉₅.
    case logNormal(medianMs: Int64, p95Ms: Int64)

    /// The largest sample (10 min): a cap, not a model parameter.
    public static let maxSampleMs: Int64 = 600_000

    /// z of the standard normal's 95th percentile.
    static let z95 = 1.6448536269514722

    /// One sample (ms).
    public func sample(using g: inout SplitMix64) -> Int64 {
        switch self {
        case .fixed(let ms):
            return Self.clamp(Double(ms))
        case .uniform(let lo, let hi):
            guard hi > lo else { return Self.clamp(Double(lo)) }
            return Self.clamp(Double(lo + g.below(hi - lo + 1)))
        case .logNormal(let median, let p95):
            let mu = log(Double(max(median, 1)))
            let sigma = log(Double(max(p95, median, 1)) / Double(max(median, 1))) / Self.z95
            return Self.clamp(exp(mu + sigma * Self.standardNormal(using: &g)).rounded())
        }
    }

    /// The distribution's median (ms).
    public var medianMs: Int64 {
        switch self {
        case .fixed(let ms): ms
        case .uniform(let lo, let hi): (lo + hi) / 2
        case .logNormal(let median, _): median
        }
    }

    /// The distribution's 95th percentile (ms).
    public var p95Ms: Int64 {
        switch self {
        case .fixed(let ms): ms
        case .uniform(let lo, let hi): lo + (hi - lo) * 95 / 100
        case .logNormal(_, let p95): p95
        }
    }

    /// Whether every sample is the same value (no randomness is drawn).
    public var isFixed: Bool { if case .fixed = self { true } else { false } }

    /// The command-line / JSON string form: `250` or `fixed:250`, `uniform:100:900`,
    /// `lognormal:622:2000` (median:p95).
    public var spec: String {
        switch self {
        case .fixed(let ms): "fixed:\(ms)"
        case .uniform(let lo, let hi): "uniform:\(lo):\(hi)"
        case .logNormal(let median, let p95): "lognormal:\(median):\(p95)"
        }
    }

    /// Parses ``spec`` (throws with a one-line reason when it is not one).
    public init(spec: String) throws(DelaySpecError) {
        let parts = spec.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        func number(_ text: String) throws(DelaySpecError) -> Int64 {
            guard let n = Int64(text), n >= 0, n <= Self.maxSampleMs else {
                throw DelaySpecError("'\(text)' is not a delay in 0...\(Self.maxSampleMs) ms")
            }
            return n
        }
        switch (parts.first ?? "", parts.count) {
        case (_, 1): self = .fixed(try number(parts[0]))
        case ("fixed", 2): self = .fixed(try number(parts[1]))
        case ("uniform", 3):
            let lo = try number(parts[1]), hi = try number(parts[2])
            guard hi >= lo else { throw DelaySpecError("uniform:\(lo):\(hi): the maximum is below the minimum") }
            self = .uniform(minMs: lo, maxMs: hi)
        case ("lognormal", 3):
            let median = try number(parts[1]), p95 = try number(parts[2])
            guard median > 0, p95 >= median else {
                throw DelaySpecError("lognormal:\(median):\(p95): needs 0 < median ≤ p95")
            }
            self = .logNormal(medianMs: median, p95Ms: p95)
        default:
            throw DelaySpecError("'\(spec)': expected MS, fixed:MS, uniform:MIN:MAX or lognormal:MEDIAN:P95")
        }
    }

    static func clamp(_ ms: Double) -> Int64 {
        guard ms.isFinite, ms > 0 else { return 0 }
        return ms >= Double(maxSampleMs) ? maxSampleMs : Int64(ms)
    }

    /// A standard normal sample (Box–Muller, one of the pair; u₁ in (0, 1] so the log is finite).
    static func standardNormal(using g: inout SplitMix64) -> Double {
        let u1 = (Double(g.next() >> 11) + 1) / 9_007_199_254_740_992
        let u2 = Double(g.next() >> 11) / 9_007_199_254_740_992
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }
}

/// A delay spec that could not be read (exit 64 in the tool; invalid scenario JSON).
public struct DelaySpecError: Error, Sendable, Hashable, CustomStringConvertible {
    /// One line for people.
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}

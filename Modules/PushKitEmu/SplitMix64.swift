/// A deterministic 64-bit generator (SplitMix64, Steele/Lea/Flood 2014) for scenarios and fuzzing.
///
/// Same algorithm as SIPCore's `SeededIdentifierSource`, but a plain value type without a lock so
/// the fuzz hot path stays allocation- and synchronisation-free.
public struct SplitMix64: RandomNumberGenerator, Sendable, Hashable {
    /// The generator state; the next output is derived from it.
    public private(set) var state: UInt64

    /// A generator whose sequence is fully determined by `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in `0..<bound` (bound > 0); the tiny modulo bias is irrelevant for fuzzing.
    public mutating func below(_ bound: Int64) -> Int64 {
        precondition(bound > 0, "SplitMix64.below needs a positive bound")
        return Int64(next() % UInt64(bound))
    }

    /// `true` with probability `percent`/100.
    public mutating func chance(_ percent: Int) -> Bool { below(100) < Int64(percent) }
}

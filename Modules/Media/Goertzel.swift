#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The Goertzel algorithm: the power of one frequency in a block of samples, in O(N).
public enum Goertzel {
    /// Squared magnitude of the DFT bin nearest to `frequency`, normalised by N² so that a
    /// full-scale sine of amplitude A gives about A²/4.
    public static func power(_ samples: some Collection<Int16>, frequency: Double, sampleRate: Double) -> Double {
        let n = Double(samples.count)
        guard n > 0 else { return 0 }
        let k = (n * frequency / sampleRate).rounded()
        let coefficient = 2 * cos(2 * Double.pi * k / n)
        var s1 = 0.0
        var s2 = 0.0
        for x in samples {
            let s0 = Double(x) + coefficient * s1 - s2
            s2 = s1
            s1 = s0
        }
        return (s1 * s1 + s2 * s2 - coefficient * s1 * s2) / (n * n)
    }

    /// Mean power per sample (A²/2 for a sine): for comparing with ``power(_:frequency:sampleRate:)``.
    public static func energy(_ samples: some Collection<Int16>) -> Double {
        guard !samples.isEmpty else { return 0 }
        var sum = 0.0
        for x in samples { sum += Double(x) * Double(x) }
        return sum / Double(samples.count)
    }

    /// The frequency in `candidates` with the strongest response.
    public static func dominant(_ samples: some Collection<Int16>, candidates: [Double], sampleRate: Double) -> Double?
    {
        candidates.max {
            power(samples, frequency: $0, sampleRate: sampleRate)
                < power(samples, frequency: $1, sampleRate: sampleRate)
        }
    }

    /// Seconds of audio, in 100 ms blocks of 8 kHz samples, that carry `frequency` clearly: the
    /// block is loud (mean power above 250,000, about −30 dBov) and most of its power is at that
    /// frequency (power/energy above 0.3; a pure sine gives about 0.5). What the call tests and
    /// live push scenarios use to prove two-way audio from a recording.
    public static func toneSeconds(_ samples: [Int16], frequency: Double, sampleRate: Double = 8000) -> Double {
        let blockSize = Int(sampleRate / 10)
        guard blockSize > 0 else { return 0 }
        var blocks = 0
        var index = 0
        while index + blockSize <= samples.count {
            let block = samples[index..<index + blockSize]
            let energy = energy(block)
            if energy > 250_000, power(block, frequency: frequency, sampleRate: sampleRate) / energy > 0.3 {
                blocks += 1
            }
            index += blockSize
        }
        return Double(blocks) / 10
    }
}

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
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A sum of sines (a test tone, a DTMF pair, a ringback) with a phase accumulator, so frames
/// join without clicks; optionally limited to a duration.
public struct ToneGenerator: AudioSource {
    public let frequencies: [Double]
    /// Peak amplitude of each component (the sum must stay below 32767).
    public let amplitude: Double
    public let sampleRate: Double
    /// Samples left to produce (nil = endless).
    private var remaining: Int?
    private var sampleIndex: Int = 0

    public init(frequencies: [Double], amplitude: Double = 8000, sampleRate: Double = 8000, duration: Duration? = nil) {
        self.frequencies = frequencies
        self.amplitude = amplitude
        self.sampleRate = sampleRate
        if let duration {
            let c = duration.components
            let seconds = Double(c.seconds) + Double(c.attoseconds) * 1e-18
            remaining = Int((seconds * sampleRate).rounded())
        }
    }

    /// A DTMF key's dual tone (Q.23).
    public static func dtmf(_ digit: DTMFDigit, amplitude: Double = 6000, duration: Duration? = nil) -> ToneGenerator {
        let f = digit.frequencies
        return ToneGenerator(frequencies: [f.low, f.high], amplitude: amplitude, duration: duration)
    }

    public mutating func read(into frame: inout [Int16]) -> Bool {
        if let r = remaining, r <= 0 { return false }
        for i in frame.indices {
            if let r = remaining, r <= 0 {
                frame[i] = 0
                continue
            }
            let t = Double(sampleIndex) / sampleRate
            var v = 0.0
            for f in frequencies { v += sin(2 * Double.pi * f * t) }
            frame[i] = Int16(max(-32767, min(32767, (v * amplitude).rounded())))
            sampleIndex += 1
            if remaining != nil { remaining! -= 1 }
        }
        return true
    }

    /// Generates `count` samples at once.
    public mutating func samples(_ count: Int) -> [Int16] {
        var out = [Int16](repeating: 0, count: count)
        _ = read(into: &out)
        return out
    }
}

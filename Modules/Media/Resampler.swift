#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Band-limited sample-rate conversion (windowed-sinc, Blackman window), e.g. 16 kHz,
/// 44.1 kHz or 48 kHz to the 8 kHz of G.711. The cut-off is 0.9 × the lower Nyquist
/// frequency, so converting down removes what would alias.
package enum Resampler {
    /// Converts `samples` from `inputRate` to `outputRate` Hz.
    public static func resample(_ samples: [Int16], from inputRate: Int, to outputRate: Int, halfTaps: Int = 16)
        -> [Int16]
    {
        guard inputRate != outputRate, !samples.isEmpty else { return samples }
        let ratio = Double(outputRate) / Double(inputRate)
        let cutoff = 0.9 * min(1.0, ratio)  // relative to the input Nyquist
        let outCount = Int((Double(samples.count) * ratio).rounded(.down))
        let width = Double(halfTaps) / min(1.0, ratio)  // taps in input samples
        var out = [Int16](repeating: 0, count: outCount)
        for n in 0..<outCount {
            let center = Double(n) / ratio
            let lo = max(0, Int((center - width).rounded(.up)))
            let hi = min(samples.count - 1, Int((center + width).rounded(.down)))
            var acc = 0.0
            var norm = 0.0
            if lo <= hi {
                for k in lo...hi {
                    let x = Double(k) - center
                    let s = x == 0 ? 1.0 : sin(Double.pi * cutoff * x) / (Double.pi * cutoff * x)
                    let w = 0.42 + 0.5 * cos(Double.pi * x / width) + 0.08 * cos(2 * Double.pi * x / width)
                    let h = s * w
                    acc += h * Double(samples[k])
                    norm += h
                }
            }
            out[n] = Int16(max(-32768, min(32767, norm == 0 ? 0 : (acc / norm).rounded())))
        }
        return out
    }
}

import Foundation
import Testing

@testable import Media

/// ``Goertzel/toneSeconds(_:frequency:sampleRate:)``: what every two-way-audio check in the
/// call and live push tests stands on, so its thresholds are pinned here.
@Suite struct GoertzelToneSecondsTests {
    static func tone(_ frequency: Double, seconds: Double, amplitude: Double = 8_000) -> [Int16] {
        (0..<Int(seconds * 8000)).map { Int16(amplitude * sin(2 * Double.pi * frequency * Double($0) / 8000)) }
    }

    @Test func countsOnlyTheBlocksThatCarryTheTone() {
        let samples = Self.tone(440, seconds: 1) + [Int16](repeating: 0, count: 4_000) + Self.tone(1_000, seconds: 0.3)
        #expect(Goertzel.toneSeconds(samples, frequency: 440) == 1.0)
        #expect(Goertzel.toneSeconds(samples, frequency: 1_000) == 0.3)
        #expect(Goertzel.toneSeconds(samples, frequency: 2_000) == 0)
    }

    @Test func quietOrMixedBlocksDoNotCount() {
        // −50 dBov: below the loudness floor, even though it is a clean tone.
        #expect(Goertzel.toneSeconds(Self.tone(440, seconds: 1, amplitude: 100), frequency: 440) == 0)
        // Equal parts 440 and 1000 Hz: neither holds most of the power.
        let a = Self.tone(440, seconds: 1, amplitude: 6_000), b = Self.tone(1_000, seconds: 1, amplitude: 6_000)
        let mixed = zip(a, b).map { $0 &+ $1 }
        #expect(Goertzel.toneSeconds(mixed, frequency: 440) == 0)
        // A trailing partial block is ignored.
        #expect(Goertzel.toneSeconds(Array(Self.tone(440, seconds: 1)[0..<799]), frequency: 440) == 0)
    }
}

import Media

/// WAV files as `astra-call --play` reads them (RIFF/WAVE, PCM 8/16-bit, any channels), then
/// resampled to 8 kHz for G.711 as the tool does. Seeds: files our writer produces.
///
/// Invariants: a parsed file re-written as 16-bit mono reads back identical; its rate is one
/// resampling can afford; resampling to 8 kHz gives `samples × 8000 / rate` samples, give or
/// take one.
enum WAVTarget {
    static let target = FuzzTarget(
        name: "wav",
        summary: "WAV reader (RIFF chunks, PCM formats), 16-bit round trip, resampling to 8 kHz as astra-call --play",
        maxLength: 16_384, seeds: seeds, run: run)

    static func run(_ bytes: [UInt8]) {
        guard let wav = try? WAVFile(bytes: bytes) else { return }
        let again = try? WAVFile(bytes: wav.serialized())
        invariant(again == wav, "WAV does not survive write → read")
        invariant(WAVFile.sampleRates.contains(wav.sampleRate), "accepted a sample rate of \(wav.sampleRate) Hz")
        let expected = Double(wav.samples.count) * 8000 / Double(wav.sampleRate)
        let resampled = wav.resampled(to: 8000)
        invariant(
            abs(Double(resampled.samples.count) - expected) <= 1,
            "resampled to \(resampled.samples.count) samples, expected \(expected)")
    }

    static func seeds() -> [[UInt8]] {
        let tone = (0..<400).map { Int16(truncatingIfNeeded: ($0 * 997) % 30_000 - 15_000) }
        var seeds = [8000, 16_000, 44_100, 48_000].map { WAVFile(sampleRate: $0, samples: tone).serialized() }
        seeds.append(WAVFile(sampleRate: 8000, samples: tone).serialized(bitsPerSample: 8))
        // Stereo 16-bit with a LIST chunk before fmt, as editors write it.
        var stereo = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WAVE".utf8)
        stereo += Array("LIST".utf8) + [4, 0, 0, 0] + Array("INFO".utf8)
        stereo += Array("fmt ".utf8) + [16, 0, 0, 0, 1, 0, 2, 0, 0x44, 0xAC, 0, 0, 0x10, 0xB1, 2, 0, 4, 0, 16, 0]
        stereo += Array("data".utf8) + [16, 0, 0, 0] + (0..<16).map { UInt8($0 * 13) }
        seeds.append(stereo)
        return seeds
    }
}

#if canImport(Glibc)
import Glibc
#endif
import Testing

@testable import Media

@Suite struct AudioTests {
    @Test(arguments: [16000, 44100, 48000])
    func wavRoundTripAndResampleTo8kKeepsTheToneAndRemovesAliases(rate: Int) throws {
        var tone = ToneGenerator(frequencies: [1000], amplitude: 8000, sampleRate: Double(rate))
        // Add a 6 kHz component (above the 4 kHz Nyquist of 8 kHz) that must be filtered out.
        var alias = ToneGenerator(frequencies: [6000], amplitude: 8000, sampleRate: Double(rate))
        let n = rate / 2
        let a = tone.samples(n)
        let b = alias.samples(n)
        let mixed = zip(a, b).map { Int16(clamping: Int($0) + Int($1)) }
        let wav = WAVFile(sampleRate: rate, samples: mixed)
        for bits in [8, 16] {
            let parsed = try WAVFile(bytes: wav.serialized(bitsPerSample: bits))
            #expect(parsed.sampleRate == rate && parsed.samples.count == n)
            if bits == 16 { #expect(parsed == wav) }
        }
        let down = wav.resampled(to: 8000)
        #expect(abs(down.samples.count - 4000) <= 1)
        let body = Array(down.samples[400..<3600])
        let p1000 = Goertzel.power(body, frequency: 1000, sampleRate: 8000)
        let p2000 = Goertzel.power(body, frequency: 2000, sampleRate: 8000)  // where 6 kHz would alias
        #expect(abs(p1000 - 16_000_000) / 16_000_000 < 0.05)
        #expect(p2000 < p1000 / 1000)
    }

    @Test func wavFileReadsStereo8BitAndRejectsJunk() throws {
        // 2 channels, 8-bit, 8 kHz: samples (L,R) = (255,1) → ((127+(-127))/2)·256 = 0, (192, 192) → 64·256.
        var bytes = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WAVEfmt ".utf8) + [16, 0, 0, 0, 1, 0, 2, 0]
        bytes +=
            [0x40, 0x1F, 0, 0, 0x80, 0x3E, 0, 0, 2, 0, 8, 0] + Array("data".utf8) + [4, 0, 0, 0, 255, 1, 192, 192]
        let wav = try WAVFile(bytes: bytes)
        #expect(wav.sampleRate == 8000 && wav.samples == [0, 64 * 256])
        #expect(throws: MediaError(.badWAV)) { try WAVFile(bytes: Array("RIFX....WAVE".utf8)) }
        var float = bytes
        float[20] = 3  // IEEE float
        #expect(throws: MediaError(.badWAV)) { try WAVFile(bytes: float) }
    }

    @Test func wavFileWritesAndReadsDisk() throws {
        let path = "/tmp/astra-media-test-\(UInt32.random(in: 0...UInt32.max)).wav"
        var tone = ToneGenerator(frequencies: [440], amplitude: 3000)
        let wav = WAVFile(sampleRate: 8000, samples: tone.samples(800))
        try wav.write(path: path)
        defer { unlink(path) }
        #expect(try WAVFile.read(path: path) == wav)
        // A recording is a patient's call: created 0600.
        var status = stat()
        #expect(stat(path, &status) == 0 && status.st_mode & 0o777 == 0o600)
        #expect(throws: MediaError(.badWAV)) { try WAVFile.read(path: "/nonexistent/x.wav") }
        // `--play /dev/zero`: refused on its first bytes (a 64 MiB read took > 2 s under load).
        let start = ContinuousClock.now
        #expect(throws: MediaError(.badWAV)) { try WAVFile.read(path: "/dev/zero") }
        #expect(ContinuousClock.now - start < .seconds(1))
    }

    @Test func toneGeneratorIsContinuousAcrossFramesAndEnds() {
        var chunked = ToneGenerator(frequencies: [1000], duration: .milliseconds(50))
        var whole = ToneGenerator(frequencies: [1000])
        var frames: [Int16] = []
        var frame = [Int16](repeating: 0, count: 160)
        while chunked.read(into: &frame) { frames += frame }
        #expect(frames.count == 480)  // 400 samples + padding of the last frame
        #expect(Array(frames.prefix(400)) == whole.samples(400))
        #expect(frames.suffix(80).allSatisfy { $0 == 0 })
    }

    @Test func pacerUsesAbsoluteDeadlinesSkipsAfterStallsAndCorrectsRate() {
        var p = FramePacer(interval: .milliseconds(20), start: .milliseconds(5))
        let early = p.frameDue(now: .milliseconds(4))
        #expect(early == 0)
        // Woken 1.3 ms late each time: no drift accumulates.
        for n in 0..<500 {
            let now = p.nextDeadline + .microseconds(1300)
            let due = p.frameDue(now: now)
            #expect(due == 1, "frame \(n)")
        }
        #expect(p.nextDeadline == .milliseconds(5 + 20 * 500))
        // A 200 ms stall: 3 frames in a burst, the rest skipped.
        let stall = p.nextDeadline + .milliseconds(200)
        let burst = p.frameDue(now: stall)
        #expect(burst == 3)
        #expect(p.skippedFrames == 8)
        // +1000 ppm: frames come 20 µs later each.
        p.setCorrection(ppm: 1000)
        let d0 = p.nextDeadline
        #expect(p.deadline(of: p.frameIndex + 50) - d0 == .milliseconds(1001))
    }

    @Test func pacerOnTheTestClockProducesExactTwentyMillisecondTicks() async throws {
        let clock = TestClockAdapter()
        var p = FramePacer()
        var sendTimes: [Duration] = []
        for _ in 0..<500 {
            clock.now = p.nextDeadline + .microseconds(Int.random(in: 0...3000))  // wake-up jitter
            for _ in 0..<p.frameDue(now: clock.now) { sendTimes.append(p.deadline(of: p.frameIndex - 1)) }
        }
        let intervals = zip(sendTimes.dropFirst(), sendTimes).map { $0 - $1 }
        #expect(intervals.allSatisfy { $0 == .milliseconds(20) })
    }

    @Test func alsaNullDevicePlaysAndCapturesAndMissingDeviceFailsCleanly() throws {
        let playback = try ALSADevice(name: "null", stream: .playback)
        var tone = ToneGenerator(frequencies: [1000])
        #expect(try playback.write(tone.samples(160)) == 160)
        var sink = ALSASink(device: playback)
        sink.write(tone.samples(160))
        let capture = try ALSADevice(name: "null", stream: .capture)
        var source = ALSASource(device: capture)
        var frame = [Int16](repeating: 1, count: 160)
        let captured = source.read(into: &frame)
        #expect(captured)
        #expect(throws: MediaError(.audioDevice)) { try ALSADevice(name: "hw:77,0", stream: .playback) }
    }

    @Test func nullAndRecordingSinksAndSilenceSource() {
        var silence = SilenceSource()
        var frame = [Int16](repeating: 5, count: 160)
        let more = silence.read(into: &frame)
        #expect(more && frame.allSatisfy { $0 == 0 })
        var null = NullSink()
        null.write(frame)
        let rec = RecordingSink()
        rec.write([1, 2])
        rec.write([3])
        #expect(rec.samples == [1, 2, 3])
        var buffer = BufferSource(samples: [1, 2, 3])
        var f = [Int16](repeating: 9, count: 2)
        let r1 = buffer.read(into: &f)
        #expect(r1 && f == [1, 2])
        let r2 = buffer.read(into: &f)
        #expect(r2 && f == [3, 0])
        let r3 = buffer.read(into: &f)
        #expect(!r3)
    }
}

/// A settable "now" for driving the pacer in virtual time.
final class TestClockAdapter: @unchecked Sendable {
    var now: Duration = .zero
}

import CALSA
import Synchronization

/// An ALSA PCM opened by device name (`default`, `hw:0`, `plughw:1,0`, `null`…) for 16-bit
/// mono playback or capture at 8 kHz (or another rate). Blocking I/O on the caller's thread.
///
/// No sound card exists in CI: tests use `null`, which accepts writes instantly and does not
/// pace — pacing always comes from `FramePacer`.
public final class ALSADevice: @unchecked Sendable {
    public enum Stream: Sendable {
        case playback
        case capture
    }

    public let name: String
    public let stream: Stream
    public let sampleRate: Int
    // Guarded by `lock`; ALSA handles are not thread-safe.
    nonisolated(unsafe) private let pcm: OpaquePointer
    private let lock = Mutex<Int>(0)

    /// Opens and configures the device (S16_LE, interleaved, 1 channel, resampling allowed).
    public init(name: String, stream: Stream, sampleRate: Int = 8000, latency: Duration = .milliseconds(60))
        throws(MediaError)
    {
        _ = astra_alsa_silence_errors()
        var handle: OpaquePointer?
        let rc = snd_pcm_open(&handle, name, stream == .playback ? SND_PCM_STREAM_PLAYBACK : SND_PCM_STREAM_CAPTURE, 0)
        guard rc == 0, let handle else {
            throw MediaError(.audioDevice, "open '\(name)': \(String(cString: snd_strerror(rc)))")
        }
        let micros = UInt32(latency.components.seconds * 1_000_000 + latency.components.attoseconds / 1_000_000_000_000)
        let rc2 = snd_pcm_set_params(
            handle, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED, 1, UInt32(sampleRate), 1, micros)
        guard rc2 == 0 else {
            snd_pcm_close(handle)
            throw MediaError(.audioDevice, "configure '\(name)': \(String(cString: snd_strerror(rc2)))")
        }
        self.name = name
        self.stream = stream
        self.sampleRate = sampleRate
        self.pcm = handle
    }

    deinit { snd_pcm_close(pcm) }

    /// Plays samples; recovers from an underrun once. Returns frames written.
    @discardableResult
    public func write(_ samples: [Int16]) throws(MediaError) -> Int {
        let rc: Int = lock.withLock { _ in
            samples.withUnsafeBytes { raw in
                var n = snd_pcm_writei(pcm, raw.baseAddress, snd_pcm_uframes_t(samples.count))
                if n < 0 {
                    _ = snd_pcm_recover(pcm, Int32(n), 1)
                    n = snd_pcm_writei(pcm, raw.baseAddress, snd_pcm_uframes_t(samples.count))
                }
                return n
            }
        }
        guard rc >= 0 else {
            throw MediaError(.audioDevice, "write '\(name)': \(String(cString: snd_strerror(Int32(rc))))")
        }
        return rc
    }

    /// Captures `count` samples (blocking); recovers from an overrun once.
    public func read(count: Int) throws(MediaError) -> [Int16] {
        var buffer = [Int16](repeating: 0, count: count)
        let rc: Int = lock.withLock { _ in
            buffer.withUnsafeMutableBytes { raw in
                var n = snd_pcm_readi(pcm, raw.baseAddress, snd_pcm_uframes_t(count))
                if n < 0 {
                    _ = snd_pcm_recover(pcm, Int32(n), 1)
                    n = snd_pcm_readi(pcm, raw.baseAddress, snd_pcm_uframes_t(count))
                }
                return n
            }
        }
        guard rc >= 0 else {
            throw MediaError(.audioDevice, "read '\(name)': \(String(cString: snd_strerror(Int32(rc))))")
        }
        if rc < count { buffer.removeLast(count - rc) }
        return buffer
    }
}

/// Plays frames on an ALSA device (errors are counted, not thrown, on the media path).
public struct ALSASink: AudioSink {
    public let device: ALSADevice
    public init(device: ALSADevice) { self.device = device }
    public mutating func write(_ frame: [Int16]) { _ = try? device.write(frame) }
}

/// Captures frames from an ALSA device.
public struct ALSASource: AudioSource {
    public let device: ALSADevice
    public init(device: ALSADevice) { self.device = device }
    public mutating func read(into frame: inout [Int16]) -> Bool {
        guard let captured = try? device.read(count: frame.count) else { return false }
        for i in frame.indices { frame[i] = i < captured.count ? captured[i] : 0 }
        return true
    }
}

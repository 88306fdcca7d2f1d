import Synchronization

/// Produces 8 kHz mono 16-bit frames for sending.
public protocol AudioSource: Sendable {
    /// Fills `frame` (its count is the frame size); returns false when the source has ended.
    mutating func read(into frame: inout [Int16]) -> Bool
}

/// Consumes played-out 8 kHz mono 16-bit frames.
public protocol AudioSink: Sendable {
    mutating func write(_ frame: [Int16])
}

/// A source of silence that never ends.
public struct SilenceSource: AudioSource {
    public init() {}
    public mutating func read(into frame: inout [Int16]) -> Bool {
        for i in frame.indices { frame[i] = 0 }
        return true
    }
}

/// A sink that discards audio.
public struct NullSink: AudioSink {
    public init() {}
    public mutating func write(_ frame: [Int16]) {}
}

/// A sink that keeps everything written (for tests and recording); shareable.
public final class RecordingSink: AudioSink {
    private let storage = Mutex<[Int16]>([])
    public init() {}
    public func write(_ frame: [Int16]) { storage.withLock { $0 += frame } }
    /// Everything written so far.
    public var samples: [Int16] { storage.withLock { $0 } }
}

/// A finite source over a sample buffer (e.g. a WAV file), then silence-free end.
public struct BufferSource: AudioSource {
    private let samples: [Int16]
    private var position = 0
    public init(samples: [Int16]) { self.samples = samples }
    public mutating func read(into frame: inout [Int16]) -> Bool {
        guard position < samples.count else { return false }
        for i in frame.indices {
            frame[i] = position < samples.count ? samples[position] : 0
            position += 1
        }
        return true
    }
}

/// An adaptive jitter buffer for one audio stream of fixed-size frames, driven in (virtual)
/// time by the caller: ``insert(sequenceNumber:timestamp:samples:arrival:)`` on each packet,
/// ``pop(now:)`` once per frame interval.
///
/// - Reordering: frames are kept by (unwrapped) RTP timestamp and played in order.
/// - Duplicates (already buffered or recently played) and late packets (their slot has been
///   played or concealed) are dropped and counted.
/// - Loss concealment: the last frame is repeated with a 6 dB fade per repetition, then
///   silence after ``Configuration/maxRepetitions`` (ITU-T G.711 Appendix I in spirit).
/// - Adaptation: the minimum "slack" (play time − arrival) over a one-second window drives the
///   delay: a late packet stretches playout by the missing frames (one concealed frame, no
///   timestamp advance); more than a frame of spare slack for a whole window shrinks it by
///   skipping one *quiet* frame (at most one per window: the window then starts over). The
///   delay stays within ``Configuration/minDelay``…``Configuration/maxDelay``.
/// - Why quiet frames only: skipping a frame of continuous sound cuts the waveform (a 440 Hz
///   tone jumps 0.8 of a cycle per 20 ms frame), an audible click. As in talkspurt-based
///   adaptive playout (Ramjee et al., INFOCOM 1994), the delay is shortened in a pause; during
///   continuous sound (a tone, music) it stays until one comes. Time-scale modification would
///   shrink inside sound too (known missing).
public struct JitterBuffer: Sendable {
    public struct Configuration: Sendable, Hashable {
        /// Samples per frame (160 = 20 ms at 8 kHz).
        public var samplesPerFrame: Int = 160
        public var frameDuration: Duration = .milliseconds(20)
        /// Buffering before the first frame plays.
        public var initialDelay: Duration = .milliseconds(60)
        public var minDelay: Duration = .milliseconds(20)
        public var maxDelay: Duration = .milliseconds(300)
        /// Frames of look-ahead kept at most; more are dropped as overflow.
        public var capacity: Int = 50
        /// Concealment repeats before silence.
        public var maxRepetitions: Int = 3
        /// Slack window for adaptation, in frames.
        public var window: Int = 50
        /// A frame whose mean absolute sample is at most this (−42 dBov; G.711 silence decodes
        /// to 0…8) is quiet: only quiet frames are skipped to shrink the delay.
        public var quietLevel: Int = 256
        public init() {}
    }

    /// What plays in one frame interval.
    public enum Playout: Sendable, Hashable {
        /// Not started yet (buffering): play silence.
        case buffering
        /// A received frame.
        case frame(timestamp: UInt32, samples: [Int16])
        /// A concealment frame (repeat + fade or silence) for a missing one.
        case concealed(samples: [Int16])

        public var samples: [Int16]? {
            switch self {
            case .buffering: nil
            case .frame(_, let s), .concealed(let s): s
            }
        }
    }

    public struct Statistics: Sendable, Hashable {
        public var received = 0
        public var played = 0
        public var concealed = 0
        public var late = 0
        public var duplicates = 0
        public var overflow = 0
        /// Times the buffer restarted on a new timeline (timestamp jump, new source).
        public var resyncs = 0
        /// Frames inserted to grow the delay.
        public var stretched = 0
        /// Received frames skipped to shrink the delay.
        public var shrunk = 0
        /// Adaptation target, relative to where playout started (moves by whole frames).
        public var delay: Duration = .zero
        /// Total time played frames spent in the buffer (emission − arrival), as WebRTC's
        /// `jitterBufferDelay`; divide by ``played`` (see ``meanBufferDelay``).
        public var totalBufferDelay: Duration = .zero
        /// Mean time a played frame waited in the buffer.
        public var meanBufferDelay: Duration { played == 0 ? .zero : totalBufferDelay / played }
        public var maxDelaySeen: Duration = .zero
        /// Frames currently buffered.
        public var buffered = 0
    }

    public let configuration: Configuration
    public private(set) var statistics = Statistics()

    private struct Entry: Sendable {
        var samples: [Int16]
        var arrival: Duration
    }

    private var frames: [Int64: Entry] = [:]
    private var firstArrival: Duration?
    private var referenceTimestamp: UInt32 = 0
    /// Unwrapped timestamp of the next frame to play (nil until playout starts).
    private var playoutTimestamp: Int64?
    private var lastPopTime: Duration = .zero
    private var lastSamples: [Int16]?
    private var repetitions = 0
    private var played: Set<Int64> = []
    private var playedOrder: [Int64] = []
    private var slacks: [Duration] = []
    private var pendingStretch = 0
    private var outOfRange = 0
    private var delay: Duration

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        self.delay = configuration.initialDelay
        statistics.delay = delay
    }

    private var step: Int64 { Int64(configuration.samplesPerFrame) }

    private func unwrap(_ ts: UInt32) -> Int64 {
        let anchor = playoutTimestamp ?? 0
        let anchorTS = UInt32(truncatingIfNeeded: anchor &+ Int64(referenceTimestamp))
        return anchor + Int64(RTPSerial.distance(ts, anchorTS))
    }

    /// Adds a packet's decoded frame that arrived at `arrival`.
    public mutating func insert(sequenceNumber: UInt16, timestamp: UInt32, samples: [Int16], arrival: Duration) {
        // A stream whose timestamps jumped far away (peer restarted, resumed after we stopped
        // playing, new SSRC) would otherwise be dropped forever as late or overflow: after
        // three consecutive such packets, start over on the new timeline.
        if let playout = playoutTimestamp {
            let key = unwrap(timestamp)
            let span = step * Int64(configuration.capacity)
            if key >= playout + span || key < playout - span {
                outOfRange += 1
                if outOfRange >= 3 {
                    resync()
                } else {
                    if key >= playout + span { statistics.overflow += 1 } else { statistics.late += 1 }
                    return
                }
            } else {
                outOfRange = 0
            }
        }
        if firstArrival == nil {
            firstArrival = arrival
            referenceTimestamp = timestamp
        }
        let key = unwrap(timestamp)
        if frames[key] != nil || played.contains(key) {
            statistics.duplicates += 1
            return
        }
        if let playout = playoutTimestamp, key < playout {
            statistics.late += 1
            // How late: its slot was played at lastPopTime - (playout - key - step) frames ago.
            let framesAgo = (playout - key) / step - 1
            let slot = lastPopTime - configuration.frameDuration * Int(framesAgo)
            recordSlack(slot - arrival)
            return
        }
        if let playout = playoutTimestamp, key >= playout + step * Int64(configuration.capacity) {
            statistics.overflow += 1
            return
        }
        statistics.received += 1
        frames[key] = Entry(samples: samples, arrival: arrival)
        statistics.buffered = frames.count
    }

    /// Forgets the timeline (keeps statistics): the next packet starts buffering anew. Call on
    /// a new SSRC.
    public mutating func resync() {
        frames.removeAll()
        firstArrival = nil
        playoutTimestamp = nil
        played.removeAll()
        playedOrder.removeAll()
        slacks.removeAll()
        pendingStretch = 0
        outOfRange = 0
        delay = configuration.initialDelay
        statistics.resyncs += 1
        statistics.buffered = 0
    }

    /// The frame to play at `now` (call once per frame interval).
    public mutating func pop(now: Duration) -> Playout {
        guard let first = firstArrival else { return .buffering }
        if playoutTimestamp == nil {
            guard now - first >= delay else { return .buffering }
            playoutTimestamp = frames.keys.min() ?? 0
        }
        lastPopTime = now
        guard var playout = playoutTimestamp else { return .buffering }

        if pendingStretch > 0 {
            pendingStretch -= 1
            statistics.stretched += 1
            return conceal()
        }
        let result: Playout
        if let entry = frames.removeValue(forKey: playout) {
            recordSlack(now - entry.arrival)
            statistics.totalBufferDelay += now - entry.arrival
            markPlayed(playout)
            lastSamples = entry.samples
            repetitions = 0
            statistics.played += 1
            result = .frame(
                timestamp: UInt32(truncatingIfNeeded: playout &+ Int64(referenceTimestamp)), samples: entry.samples)
        } else {
            result = conceal()
        }
        playout += step
        playoutTimestamp = playout
        adapt()
        statistics.buffered = frames.count
        return result
    }

    private mutating func conceal() -> Playout {
        statistics.concealed += 1
        repetitions += 1
        guard let last = lastSamples, repetitions <= configuration.maxRepetitions else {
            return .concealed(samples: [Int16](repeating: 0, count: configuration.samplesPerFrame))
        }
        let faded = last.map { Int16($0 / 2) }
        lastSamples = faded
        return .concealed(samples: faded)
    }

    private mutating func markPlayed(_ key: Int64) {
        played.insert(key)
        playedOrder.append(key)
        if playedOrder.count > 200 { played.remove(playedOrder.removeFirst()) }
    }

    private mutating func recordSlack(_ slack: Duration) {
        slacks.append(slack)
        if slacks.count > configuration.window { slacks.removeFirst() }
    }

    private func isQuiet(_ samples: [Int16]) -> Bool {
        var sum = 0
        for x in samples { sum += Int(x.magnitude) }
        return sum <= configuration.quietLevel * max(1, samples.count)
    }

    /// RFC-free heuristic: keep the minimum slack of the window between 0 and one frame.
    private mutating func adapt() {
        guard let minSlack = slacks.min(), let playout = playoutTimestamp else { return }
        let frame = configuration.frameDuration
        if minSlack < .zero {
            // Packets arrived too late: grow by the frames needed.
            var frames = 0
            var grow = Duration.zero
            while minSlack + grow < .zero && delay + grow + frame <= configuration.maxDelay {
                grow += frame
                frames += 1
            }
            if frames > 0 {
                pendingStretch += frames
                delay += grow
                slacks = slacks.map { $0 + grow }
            } else {
                slacks = slacks.map { max($0, .zero) }
            }
        } else if slacks.count >= configuration.window, minSlack > frame + frame / 2,
            delay - frame >= configuration.minDelay, let next = self.frames[playout], isQuiet(next.samples)
        {
            // Spare slack for a whole window: skip one quiet frame, then measure a new window
            // (before, the shifted old window let the next pop skip again: two cuts 20 ms apart).
            self.frames.removeValue(forKey: playout)
            markPlayed(playout)
            playoutTimestamp = playout + step
            statistics.shrunk += 1
            delay -= frame
            slacks.removeAll()
        }
        statistics.delay = delay
        statistics.maxDelaySeen = max(statistics.maxDelaySeen, delay)
    }
}

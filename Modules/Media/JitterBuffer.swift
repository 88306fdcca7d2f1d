/// An adaptive jitter buffer for one audio stream of fixed-size frames, driven in (virtual)
/// time by the caller: ``insert(sequenceNumber:timestamp:samples:arrival:)`` on each packet,
/// ``pop(now:)`` once per frame interval.
///
/// - Reordering: frames are kept by (unwrapped) RTP timestamp and played in order.
/// - Placement by timestamp, not by grid: each interval plays the earliest buffered frame that
///   starts before the interval ends, and playout continues from *that* frame's timestamp. A
///   sender whose timestamps move by a non-multiple of the frame size (RFC 3550 §5.1 allows any
///   jump; a softphone moving by 400 after a hold/resume instead of 160) is followed at once —
///   before, playout walked a fixed 160-sample grid from the first frame and frames off it were
///   neither played nor removed.
/// - Discontinuities: a packet next in sequence whose timestamp is not where the sequence puts
///   it is a jump in the sender's timeline. Where its timestamp still lands ahead of what is
///   buffered and within the look-ahead, it is simply placed there; where it would land behind
///   the newest frame, in the past or beyond the look-ahead, the timeline is re-anchored so the
///   stream continues after the newest frame (nothing dropped, no buffering anew). The marker
///   bit plays no part: senders set it on such jumps or not.
/// - Memory: at most ``Configuration/capacity`` frames are kept, whatever the timestamps do.
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
        /// Timestamp jumps of an in-sequence stream followed by re-anchoring the timeline
        /// (RFC 3550 §5.1), without starting over.
        public var discontinuities = 0
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
        var timestamp: UInt32
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
    /// The newest packet received (by sequence number) and where it was placed.
    private var newest: (sequence: UInt16, key: Int64)?
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

    /// Look-ahead kept, in timestamp units.
    private var span: Int64 { step * Int64(configuration.capacity) }

    /// Adds a packet's decoded frame that arrived at `arrival`.
    public mutating func insert(sequenceNumber: UInt16, timestamp: UInt32, samples: [Int16], arrival: Duration) {
        if firstArrival != nil { followDiscontinuity(sequenceNumber, timestamp) }
        // A stream whose timestamps jumped far away (peer restarted, resumed after we stopped
        // playing, new SSRC) would otherwise be dropped forever as late or overflow: after
        // three consecutive such packets, start over on the new timeline.
        if let playout = playoutTimestamp {
            let key = unwrap(timestamp)
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
        if newest.map({ RTPSerial.isNewer(sequenceNumber, than: $0.sequence) }) ?? true {
            newest = (sequenceNumber, key)
        }
        // Late: the whole frame lies before the playout point. One that started before it but
        // reaches past it (off the grid) still plays, next.
        if let playout = playoutTimestamp, key + step <= playout {
            statistics.late += 1
            // How late: its slot was played at lastPopTime - (playout - key - step) frames ago.
            let framesAgo = (playout - key) / step - 1
            let slot = lastPopTime - configuration.frameDuration * Int(framesAgo)
            recordSlack(slot - arrival)
            return
        }
        if let playout = playoutTimestamp, key >= playout + span {
            statistics.overflow += 1
            return
        }
        if frames.count >= configuration.capacity {
            statistics.overflow += 1
            return
        }
        statistics.received += 1
        frames[key] = Entry(timestamp: timestamp, samples: samples, arrival: arrival)
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
        newest = nil
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
        if let key = nextKey(playout), let entry = frames.removeValue(forKey: key) {
            recordSlack(now - entry.arrival)
            statistics.totalBufferDelay += now - entry.arrival
            markPlayed(key)
            lastSamples = entry.samples
            repetitions = 0
            statistics.played += 1
            playout = key  // the sender's timestamps, not a grid: an off-grid frame realigns playout
            result = .frame(timestamp: entry.timestamp, samples: entry.samples)
        } else {
            result = conceal()
        }
        playout += step
        playoutTimestamp = playout
        adapt()
        statistics.buffered = frames.count
        return result
    }

    /// The frame that plays in the interval starting at `playout`: the earliest buffered one,
    /// when it starts before the interval ends. Buffered frames never lie wholly before
    /// `playout` (late ones are refused, and playout only moves to the end of the earliest).
    private func nextKey(_ playout: Int64) -> Int64? {
        guard let key = frames.keys.min(), key < playout + step else { return nil }
        return key
    }

    /// RFC 3550 §5.1: the timestamp may jump (silence suppression, a sender that restarts its
    /// clock or moves it on hold/resume), and the receiver follows. A packet 1…capacity later
    /// in sequence than the newest, whose timestamp is not that many frames on, is such a jump.
    /// Placed by its timestamp it plays when it lands after the newest frame and within the
    /// look-ahead; otherwise (behind the newest frame, already past, too far ahead) the sender's
    /// timeline is re-anchored: this packet goes where its sequence number puts it, or, when
    /// that slot has already played, one playout delay ahead of the playout point.
    private mutating func followDiscontinuity(_ sequence: UInt16, _ timestamp: UInt32) {
        guard let newest else { return }
        let gap = RTPSerial.distance(sequence, newest.sequence)
        guard gap >= 1, gap <= configuration.capacity else { return }
        let key = unwrap(timestamp)
        let expected = newest.key + Int64(gap) * step
        guard key != expected else { return }
        var target = expected
        if let playout = playoutTimestamp {
            if key > newest.key, key + step > playout, key < playout + span { return }
            let ahead = max(0, Int64(delay / configuration.frameDuration) - 1) * step
            target = min(max(expected, playout + ahead), playout + span - step)
        } else if key > newest.key {
            return
        }
        referenceTimestamp = timestamp &- UInt32(truncatingIfNeeded: target)
        outOfRange = 0
        statistics.discontinuities += 1
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
            delay - frame >= configuration.minDelay, let key = nextKey(playout), let next = self.frames[key],
            isQuiet(next.samples)
        {
            // Spare slack for a whole window: skip one quiet frame, then measure a new window
            // (before, the shifted old window let the next pop skip again: two cuts 20 ms apart).
            self.frames.removeValue(forKey: key)
            markPlayed(key)
            playoutTimestamp = key + step
            statistics.shrunk += 1
            delay -= frame
            slacks.removeAll()
        }
        statistics.delay = delay
        statistics.maxDelaySeen = max(statistics.maxDelaySeen, delay)
    }
}

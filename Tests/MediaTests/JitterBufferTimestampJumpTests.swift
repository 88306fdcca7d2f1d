import SIPCore
import Testing

@testable import Media

/// Timestamp jumps in an in-sequence stream (RFC 3550 §5.1 allows any), in virtual time. The
/// case that was heard as silence: a softphone resuming a held call keeps its SSRC and
/// sequence numbers but moves its RTP timestamp by 400, 480 or 560 instead of 160. Before,
/// playout walked a 160-sample grid from the first frame: frames off it were kept but never
/// played (the buffer grew for the rest of the call), and a jump that the sender's pause did
/// not count made every later frame "late".
@Suite struct JitterBufferTimestampJumpTests {
    struct Run {
        var played: [Int] = []  // frame numbers, in playout order
        var maxBuffered = 0
        var stats = JitterBuffer.Statistics()
    }

    /// `count` frames sent every 20 ms, arriving 1 ms later (+`jitter(i)` ms); from frame
    /// `from` on, the timestamp moves by `shift` samples more and sending resumes after `pause`.
    /// Popped every 20 ms (+3 ms phase) until everything had time to play. Frame i carries
    /// samples of value 1000 + 150 i: loud, so none is a quiet frame the delay may skip.
    static func run(
        count: Int = 150, from: Int = 50, shift: Int, pause: Duration = .zero,
        jitter: (Int) -> Int = { _ in 0 }
    ) -> Run {
        var b = JitterBuffer()
        var out = Run()
        var arrivals: [(time: Duration, frame: Int)] = (0..<count).map { i in
            let sent = Duration.milliseconds(20 * i) + (i >= from ? pause : .zero)
            return (sent + .milliseconds(1 + jitter(i)), i)
        }
        arrivals.sort { $0.time < $1.time }
        var next = 0
        var t = Duration.milliseconds(3)
        let end = Duration.milliseconds(20 * count + 600) + pause
        while t < end {
            while next < arrivals.count, arrivals[next].time <= t {
                let i = arrivals[next].frame
                let sequence = 1000 + i  // the sequence numbers go on: same source, same stream
                let timestamp = Int64(0xFFFF_F000) + Int64(160 * i) + (i >= from ? Int64(shift) : 0)
                b.insert(
                    sequenceNumber: UInt16(truncatingIfNeeded: sequence), timestamp: UInt32(truncatingIfNeeded: timestamp),
                    samples: [Int16](repeating: Int16(1000 + 150 * i), count: 160), arrival: arrivals[next].time)
                next += 1
            }
            if case .frame(_, let samples) = b.pop(now: t) { out.played.append((Int(samples[0]) - 1000) / 150) }
            out.maxBuffered = max(out.maxBuffered, b.statistics.buffered)
            t += .milliseconds(20)
        }
        out.stats = b.statistics
        return out
    }

    /// The hold/resume case: 400/480/560 instead of 160 (240, 320, 400 more), and shifts of
    /// half a frame either way; the sender either kept sending or paused 600 ms without its
    /// timestamp counting the pause. Every frame plays, once, in order; the buffer stays small.
    @Test(arguments: [240, 320, 400, 80, -80, -240, -1000], [Duration.zero, .milliseconds(600)])
    func anInSequenceTimestampShiftIsFollowed(shift: Int, pause: Duration) {
        let r = Self.run(shift: shift, pause: pause)
        #expect(r.played == Array(0..<150), "shift \(shift), pause \(pause): played \(r.played.count) of 150")
        #expect(r.maxBuffered <= 5, "frames kept: \(r.maxBuffered)")
        #expect(r.stats.late == 0 && r.stats.overflow == 0 && r.stats.resyncs == 0)
        #expect(r.stats.buffered == 0)
    }

    /// A shift and network jitter (0–40 ms, so reordering) together: still everything plays.
    @Test func aShiftAmidJitterIsFollowed() {
        let rng = SeededIdentifierSource(seed: 29)
        let delays = (0..<150).map { _ in Int(rng.nextUInt64() % 41) }
        let r = Self.run(shift: 400, jitter: { delays[$0] })
        #expect(Set(r.played).count == r.played.count, "never twice")
        #expect(r.played.count >= 146 && r.played.suffix(90) == Array(60..<150), "\(r.played.count) played")
        #expect(r.maxBuffered <= 8)
    }

    /// Silence suppression (RFC 3551 §4.1): the next talkspurt's timestamp counts the silent
    /// second exactly as time passed; it is placed by its timestamp (no re-anchoring), so the
    /// timing across the pause is kept.
    @Test func aJumpThatMatchesElapsedTimeIsPlacedByTimestamp() {
        let r = Self.run(shift: 50 * 160, pause: .seconds(1))
        #expect(r.played == Array(0..<150))
        #expect(r.stats.discontinuities == 0 && r.stats.resyncs == 0)
    }

    /// A 10 s jump forward with consecutive sequence numbers: followed at once, nothing dropped
    /// (before: two packets dropped as overflow, then a restart with new buffering).
    @Test func aFarJumpInSequenceIsFollowedWithoutDropping() {
        let r = Self.run(count: 200, from: 100, shift: 80_000)
        #expect(r.played == Array(0..<200))
        #expect(r.stats.discontinuities == 1 && r.stats.resyncs == 0 && r.stats.overflow == 0)
    }

    /// A sender that restarts both its timestamps and its sequence numbers (same SSRC): not
    /// in sequence, so the out-of-range rule restarts the buffer after three such packets.
    @Test func aRestartOutOfSequenceResynchronises() {
        var b = JitterBuffer()
        var played = 0
        for i in 0..<200 {
            let restarted = i >= 100
            b.insert(
                sequenceNumber: UInt16(truncatingIfNeeded: restarted ? 30_000 + i : i),
                timestamp: UInt32(i * 160) &+ (restarted ? 80_000 : 0), samples: [Int16](repeating: 1, count: 160),
                arrival: .milliseconds(20 * i))
            if case .frame = b.pop(now: .milliseconds(20 * i)) { played += 1 }
        }
        #expect(b.statistics.resyncs == 1 && b.statistics.overflow == 2)
        #expect(played >= 190)
    }

    /// Whatever the timestamps, the buffer keeps at most `capacity` frames: 10 000 packets with
    /// random sequence numbers and timestamps inside the look-ahead, never popped.
    @Test func memoryIsBoundedWhateverTheTimestamps() {
        let rng = SeededIdentifierSource(seed: 7)
        var b = JitterBuffer()
        for _ in 0..<10_000 {
            b.insert(
                sequenceNumber: UInt16(truncatingIfNeeded: rng.nextUInt64()), timestamp: UInt32(rng.nextUInt64() % 8000),
                samples: [Int16](repeating: 1, count: 160), arrival: .zero)
        }
        #expect(b.statistics.buffered <= JitterBuffer.Configuration().capacity)
        _ = b.pop(now: .seconds(1))
        #expect(b.statistics.buffered <= JitterBuffer.Configuration().capacity)
    }
}

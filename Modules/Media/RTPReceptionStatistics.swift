/// Receiver-side statistics for one RTP source (RFC 3550 Appendix A.1, A.3, A.8).
///
/// Feed every packet with ``update(sequenceNumber:timestamp:arrival:)``; build RTCP report
/// blocks with ``makeReportBlock(lastSR:delaySinceLastSR:)``. Arrival time is given in RTP
/// timestamp units (8 kHz for G.711) by the caller, who owns the clock.
public struct RTPReceptionStatistics: Sendable, Hashable {
    /// RFC 3550 A.1: `MIN_SEQUENTIAL`, `MAX_DROPOUT`, `MAX_MISORDER`.
    public static let minSequential = 2
    public static let maxDropout: UInt16 = 3000
    public static let maxMisorder: UInt16 = 100

    public let ssrc: UInt32
    private var maxSeq: UInt16
    private var cycles: UInt32 = 0
    private var baseSeq: UInt32
    private var badSeq: UInt32 = 0x1_0001  // RTP_SEQ_MOD + 1
    private var probation: Int
    /// Packets received (valid per A.1), duplicates included.
    public private(set) var received: UInt32 = 0
    private var expectedPrior: UInt32 = 0
    private var receivedPrior: UInt32 = 0
    private var transit: Int64?
    /// Interarrival jitter estimate J in timestamp units (A.8), as a real number.
    public private(set) var jitter: Double = 0

    /// Starts tracking `ssrc` at its first packet's sequence number (A.1 `init_seq`, with
    /// probation).
    public init(ssrc: UInt32, firstSequenceNumber seq: UInt16) {
        self.ssrc = ssrc
        self.maxSeq = seq &- 1
        self.baseSeq = UInt32(seq)
        self.probation = Self.minSequential
    }

    /// Extended highest sequence number received (cycles + max).
    public var extendedHighestSequence: UInt32 { cycles | UInt32(maxSeq) }

    /// Packets expected (A.3).
    public var expected: UInt32 { extendedHighestSequence &- baseSeq &+ 1 }

    /// Cumulative number of packets lost (A.3), may be negative with duplicates.
    public var cumulativeLost: Int64 { Int64(expected) - Int64(received) }

    /// Processes one packet; returns false when it is not (yet) valid (probation or a big jump).
    @discardableResult
    public mutating func update(sequenceNumber seq: UInt16, timestamp: UInt32, arrival: UInt32) -> Bool {
        let udelta = seq &- maxSeq
        if probation > 0 {
            if seq == maxSeq &+ 1 {
                probation -= 1
                maxSeq = seq
                if probation == 0 {
                    restart(seq)
                    received += 1
                    updateJitter(timestamp: timestamp, arrival: arrival)
                    return true
                }
            } else {
                probation = Self.minSequential - 1
                maxSeq = seq
            }
            return false
        } else if udelta < Self.maxDropout {
            if seq < maxSeq { cycles &+= 0x1_0000 }
            maxSeq = seq
        } else if udelta <= UInt16.max - Self.maxMisorder {
            if UInt32(seq) == badSeq {
                restart(seq)
            } else {
                badSeq = (UInt32(seq) + 1) & 0xFFFF
                return false
            }
        } else {
            // duplicate or reordered packet
        }
        received &+= 1
        updateJitter(timestamp: timestamp, arrival: arrival)
        return true
    }

    private mutating func restart(_ seq: UInt16) {
        baseSeq = UInt32(seq)
        maxSeq = seq
        badSeq = 0x1_0001
        cycles = 0
        received = 0
        receivedPrior = 0
        expectedPrior = 0
    }

    /// RFC 3550 §6.4.1 / A.8: J += (|D| - J) / 16.
    private mutating func updateJitter(timestamp: UInt32, arrival: UInt32) {
        let t = Int64(Int32(bitPattern: arrival &- timestamp))
        if let previous = transit {
            let d = abs(t - previous)
            jitter += (Double(d) - jitter) / 16
        }
        transit = t
    }

    /// Builds a report block and starts a new reporting interval (A.3 fraction lost).
    public mutating func makeReportBlock(lastSR: UInt32 = 0, delaySinceLastSR: UInt32 = 0) -> RTCPReportBlock {
        let exp = expected
        let expectedInterval = Int64(exp) - Int64(expectedPrior)
        expectedPrior = exp
        let receivedInterval = Int64(received) - Int64(receivedPrior)
        receivedPrior = received
        let lostInterval = expectedInterval - receivedInterval
        let fraction: UInt8 =
            (expectedInterval == 0 || lostInterval <= 0) ? 0 : UInt8(min(255, (lostInterval << 8) / expectedInterval))
        return RTCPReportBlock(
            ssrc: ssrc, fractionLost: fraction,
            cumulativeLost: Int32(max(-0x80_0000, min(0x7F_FFFF, cumulativeLost))),
            extendedHighestSequence: extendedHighestSequence, jitter: UInt32(jitter),
            lastSR: lastSR, delaySinceLastSR: delaySinceLastSR)
    }
}

/// Sender-side RTP state for one SSRC: sequence number, media timestamp and the counters an
/// RTCP sender report needs (RFC 3550 §5.1, §6.4.1).
///
/// The initial sequence number and timestamp are random (RFC 3550 §5.1) and come from the
/// caller, so tests are deterministic.
public struct RTPSender: Sendable, Hashable {
    public let ssrc: UInt32
    /// Sequence number of the next packet.
    public private(set) var sequenceNumber: UInt16
    /// RTP timestamp of the next media frame.
    public private(set) var timestamp: UInt32
    /// RFC 3550 §6.4.1 sender's packet count.
    public private(set) var packetCount: UInt32 = 0
    /// RFC 3550 §6.4.1 sender's octet count (payload octets only).
    public private(set) var octetCount: UInt32 = 0
    /// RTP timestamp of the last packet sent (for the SR's RTP timestamp).
    public private(set) var lastTimestamp: UInt32

    public init(ssrc: UInt32, initialSequenceNumber: UInt16, initialTimestamp: UInt32) {
        self.ssrc = ssrc
        self.sequenceNumber = initialSequenceNumber
        self.timestamp = initialTimestamp
        self.lastTimestamp = initialTimestamp
    }

    /// Returns the header for the next packet carrying a frame at the current timestamp and
    /// advances the sequence number (wrapping at 2^16). Call ``advanceTimestamp(by:)`` once per
    /// media frame.
    public mutating func nextHeader(
        payloadType: UInt8, marker: Bool = false, payloadSize: Int,
        timestamp explicitTimestamp: UInt32? = nil
    ) -> RTPHeader {
        let ts = explicitTimestamp ?? timestamp
        let header = RTPHeader(
            marker: marker, payloadType: payloadType, sequenceNumber: sequenceNumber,
            timestamp: ts, ssrc: ssrc)
        sequenceNumber &+= 1
        packetCount &+= 1
        octetCount &+= UInt32(truncatingIfNeeded: payloadSize)
        lastTimestamp = ts
        return header
    }

    /// Advances the media timestamp by `samples` (160 for 20 ms at 8 kHz), wrapping at 2^32.
    public mutating func advanceTimestamp(by samples: UInt32) { timestamp &+= samples }
}

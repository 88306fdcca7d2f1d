import Media

/// A call's figures at its end: packets each way, loss, jitter, round trip, a MOS estimate and
/// the durations (set-up and talk time).
public struct CallStatistics: Sendable, Hashable {
    public var packetsSent = 0
    public var packetsReceived = 0
    /// Cumulative packets lost (RFC 3550 §6.4.1 / A.3); negative with duplicates, clamped at 0.
    public var packetsLost: Int64 = 0
    /// Lost / expected, in percent.
    public var lossPercent: Double = 0
    /// Interarrival jitter (RFC 3550 A.8), milliseconds.
    public var jitterMilliseconds: Double = 0
    /// RTCP round trip (RFC 3550 §6.4.1), when a report block came back.
    public var roundTripMilliseconds: Double?
    /// RTCP compound packets sent and received (on the RTP port with rtcp-mux, else on + 1).
    public var rtcpSent = 0
    public var rtcpReceived = 0
    /// Mean jitter-buffer delay, milliseconds.
    public var bufferDelayMilliseconds: Double = 0
    /// ITU-T G.107 E-model R factor and MOS-CQE (``EModel``); nil when no audio was received:
    /// without media there is no quality to estimate (a 1.0 MOS would say "bad call").
    public var rFactor: Double?
    public var mos: Double?
    /// Dial (or incoming INVITE) → answer, milliseconds; nil when never answered.
    public var setupMilliseconds: Double?
    /// INVITE sent (or received) → first RTP packet from the peer, milliseconds.
    public var firstRTPMilliseconds: Double?
    /// Answer → end, seconds (0 when never answered).
    public var durationSeconds: Double = 0

    public init() {}

    /// Figures from the media session's statistics (RFC 3550 receiver side).
    public init(media s: MediaStatistics) {
        packetsSent = s.packetsSent
        packetsReceived = s.packetsReceived
        packetsLost = max(0, s.cumulativeLost)
        let expected = Double(packetsReceived) + Double(packetsLost)
        lossPercent = expected > 0 ? 100 * Double(packetsLost) / expected : 0
        jitterMilliseconds = s.jitterMilliseconds
        roundTripMilliseconds = s.roundTripTime.map(Self.milliseconds)
        rtcpSent = s.rtcpSent
        rtcpReceived = s.rtcpReceived
        let played = max(1, s.jitterBuffer.played)
        bufferDelayMilliseconds = Self.milliseconds(s.jitterBuffer.totalBufferDelay) / Double(played)
        guard packetsReceived > 0 else { return }
        // One-way mouth-to-ear delay: half the RTT (or none), a 20 ms frame, the jitter buffer.
        let delay = (roundTripMilliseconds ?? 0) / 2 + 20 + bufferDelayMilliseconds
        let r = EModel.rFactor(oneWayDelayMilliseconds: delay, lossPercent: lossPercent)
        rFactor = r
        mos = EModel.mos(rFactor: r)
    }

    static func milliseconds(_ d: Duration) -> Double {
        Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
    }
}

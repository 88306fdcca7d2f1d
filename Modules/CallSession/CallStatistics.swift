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
    /// Mean jitter-buffer delay, milliseconds.
    public var bufferDelayMilliseconds: Double = 0
    /// ITU-T G.107 E-model R factor and MOS-CQE (``EModel``).
    public var rFactor: Double = 0
    public var mos: Double = 1
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
        let played = max(1, s.jitterBuffer.played)
        bufferDelayMilliseconds = Self.milliseconds(s.jitterBuffer.totalBufferDelay) / Double(played)
        // One-way mouth-to-ear delay: half the RTT (or none), a 20 ms frame, the jitter buffer.
        let delay = (roundTripMilliseconds ?? 0) / 2 + 20 + bufferDelayMilliseconds
        rFactor = EModel.rFactor(oneWayDelayMilliseconds: delay, lossPercent: lossPercent)
        mos = received ? EModel.mos(rFactor: rFactor) : 1
    }

    private var received: Bool { packetsReceived > 0 }

    static func milliseconds(_ d: Duration) -> Double {
        Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
    }
}

/// A simplified ITU-T G.107 E-model for G.711 (the "simple E-model" of Cole & Rosenbluth):
/// R = R0 − Is − Id − Ie,eff + A with the default R0 − Is = 93.2, A = 0.
public enum EModel {
    /// G.107 §7.2 delay impairment (one-way delay d in ms): Id = 0.024 d + 0.11 (d − 177.3) H(d − 177.3).
    public static func delayImpairment(_ d: Double) -> Double {
        0.024 * d + (d > 177.3 ? 0.11 * (d - 177.3) : 0)
    }

    /// G.107 §7.4 / G.113 Appendix I: Ie,eff = Ie + (95 − Ie) · Ppl / (Ppl + Bpl), G.711 Ie = 0,
    /// Bpl = 4.3 (no packet-loss concealment; our jitter buffer only repeats and fades).
    public static func equipmentImpairment(lossPercent ppl: Double) -> Double {
        let ie = 0.0, bpl = 4.3
        return ie + (95 - ie) * ppl / (ppl + bpl)
    }

    public static func rFactor(oneWayDelayMilliseconds d: Double, lossPercent: Double) -> Double {
        max(0, min(100, 93.2 - delayImpairment(d) - equipmentImpairment(lossPercent: lossPercent)))
    }

    /// G.107 Annex B: MOS = 1 + 0.035 R + R (R − 60)(100 − R) · 7·10⁻⁶, clamped to 1…4.5.
    public static func mos(rFactor r: Double) -> Double {
        if r <= 0 { return 1 }
        if r >= 100 { return 4.5 }
        return max(1, min(4.5, 1 + 0.035 * r + r * (r - 60) * (100 - r) * 7e-6))
    }
}

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

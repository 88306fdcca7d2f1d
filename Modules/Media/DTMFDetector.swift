/// In-band DTMF detection with Goertzel filters (ITU-T Q.24 style): 8 kHz audio in blocks of
/// 205 samples; a key is reported when one row and one column tone dominate, the twist is
/// within limits, and two consecutive blocks agree; released after two blocks without it.
public struct DTMFDetector: Sendable {
    public static let blockSize = 205
    private var pending: [Int16] = []
    private var lastBlockDigit: DTMFDigit?
    private var agreeing = 0
    private var silentBlocks = 0
    private var reported: DTMFDigit?
    public let sampleRate: Double

    public init(sampleRate: Double = 8000) { self.sampleRate = sampleRate }

    /// Feeds samples; returns the digits that started in them, in order.
    public mutating func process(_ samples: [Int16]) -> [DTMFDigit] {
        pending += samples
        var found: [DTMFDigit] = []
        while pending.count >= Self.blockSize {
            let block = pending.prefix(Self.blockSize)
            pending.removeFirst(Self.blockSize)
            let digit = classify(block)
            if let digit, digit == lastBlockDigit {
                agreeing += 1
            } else {
                agreeing = digit == nil ? 0 : 1
            }
            lastBlockDigit = digit
            if digit == nil {
                silentBlocks += 1
                if silentBlocks >= 2 { reported = nil }
            } else {
                silentBlocks = 0
            }
            if let digit, agreeing >= 2, reported != digit {
                reported = digit
                found.append(digit)
            }
        }
        return found
    }

    private func classify(_ block: ArraySlice<Int16>) -> DTMFDigit? {
        let energy = Goertzel.energy(block)
        guard energy > 1000 else { return nil }  // about -50 dBm0
        let rows = DTMFDigit.rowFrequencies.map { Goertzel.power(block, frequency: $0, sampleRate: sampleRate) }
        let cols = DTMFDigit.columnFrequencies.map { Goertzel.power(block, frequency: $0, sampleRate: sampleRate) }
        guard let r = rows.indices.max(by: { rows[$0] < rows[$1] }),
            let c = cols.indices.max(by: { cols[$0] < cols[$1] })
        else {
            return nil
        }
        // Each tone must clearly beat the others in its group, twist within ±8 dB, and the pair
        // must carry most of the block's energy (a sine of amplitude A has power A²/4 here,
        // energy A²/2).
        for (i, p) in rows.enumerated() where i != r && p * 6.3 > rows[r] { return nil }
        for (i, p) in cols.enumerated() where i != c && p * 6.3 > cols[c] { return nil }
        let twist = cols[c] / max(rows[r], 1e-9)
        guard twist < 6.3, twist > 1 / 6.3 else { return nil }
        guard 2 * (rows[r] + cols[c]) > 0.5 * energy else { return nil }
        return DTMFDigit(row: r, column: c)
    }
}

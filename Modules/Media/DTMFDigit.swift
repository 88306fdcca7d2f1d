/// A DTMF key and its RFC 4733 §3.2 event code and ITU-T Q.23 frequency pair.
public enum DTMFDigit: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case d0 = 0
    case d1, d2, d3, d4, d5, d6, d7, d8, d9, star, pound, a, b, c, d

    public init?(_ character: Character) {
        let all = Array("0123456789*#ABCD")
        guard let i = all.firstIndex(of: Character(character.uppercased())) else { return nil }
        self.init(rawValue: UInt8(i))
    }

    /// Parses a digit string; nil if any character is not a DTMF key.
    public static func digits(_ text: String) -> [DTMFDigit]? {
        var out: [DTMFDigit] = []
        for c in text {
            guard let d = DTMFDigit(c) else { return nil }
            out.append(d)
        }
        return out
    }

    public var character: Character { Array("0123456789*#ABCD")[Int(rawValue)] }
    public var description: String { String(character) }

    /// Q.23 row (low) frequencies.
    public static let rowFrequencies: [Double] = [697, 770, 852, 941]
    /// Q.23 column (high) frequencies.
    public static let columnFrequencies: [Double] = [1209, 1336, 1477, 1633]

    private static let keypad: [[DTMFDigit]] = [
        [.d1, .d2, .d3, .a], [.d4, .d5, .d6, .b], [.d7, .d8, .d9, .c],
        [.star, .d0, .pound, .d],
    ]

    /// (row, column) on the keypad.
    public var position: (row: Int, column: Int) {
        for (r, row) in Self.keypad.enumerated() {
            if let c = row.firstIndex(of: self) { return (r, c) }
        }
        fatalError("unreachable: every digit is on the keypad")
    }

    public init(row: Int, column: Int) { self = Self.keypad[row][column] }

    /// The low and high tone frequencies in Hz.
    public var frequencies: (low: Double, high: Double) {
        let p = position
        return (Self.rowFrequencies[p.row], Self.columnFrequencies[p.column])
    }
}

/// The RFC 4733 §2.3 telephone-event payload (4 octets).
///
/// ```
/// |     event     |E|R| volume    |          duration             |
/// ```
public struct TelephoneEventPayload: Sendable, Hashable {
    public var event: UInt8
    /// E bit: this is (a retransmission of) the final packet of the event.
    public var isEnd: Bool
    /// Power level in -dBm0, 0…63 (RFC 4733 §2.3.4).
    public var volume: UInt8
    /// Duration so far in timestamp units (RFC 4733 §2.3.5).
    public var duration: UInt16

    public init(event: UInt8, isEnd: Bool, volume: UInt8, duration: UInt16) {
        self.event = event
        self.isEnd = isEnd
        self.volume = volume & 0x3F
        self.duration = duration
    }

    public init(parsing bytes: some Collection<UInt8>) throws(MediaError) {
        guard bytes.count >= 4 else { throw MediaError(.malformedPacket, "telephone-event shorter than 4 bytes") }
        let b = Array(bytes.prefix(4))
        self.init(event: b[0], isEnd: b[1] & 0x80 != 0, volume: b[1] & 0x3F, duration: UInt16(b[2]) << 8 | UInt16(b[3]))
    }

    /// The 4 octets (R bit sent as 0).
    public var bytes: [UInt8] { [event, (isEnd ? 0x80 : 0) | volume, UInt8(duration >> 8), UInt8(duration & 0xFF)] }
}

/// A JSON number (RFC 8259 §6) kept as its literal text.
///
/// Parsed numbers keep the text they were written with, so a reader can report `expires 1e999`
/// exactly as given, read an integer without a round trip through `Double` (`9007199254740993`
/// stays exact), and the encoder writes the number back byte for byte (parse → encode is
/// stable). Numbers built from Swift values get their canonical text once, at construction.
///
/// Equality is on the literal: `1` and `1.0` are different texts (compare ``double`` for the
/// numeric value).
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    /// The literal, always valid RFC 8259 §6 grammar (`3600`, `-1.5e3`, `0.25`).
    public let text: String

    /// An integer of any width, written in decimal.
    public init<Integer: BinaryInteger>(_ value: Integer) { text = String(value) }

    /// A finite double in its shortest round-trip text; integral values below 10¹⁵ print
    /// without `.0` (`3600`, `0.25`, `1e-05`). `nil` for NaN and the infinities, which JSON
    /// cannot write (RFC 8259 §6).
    public init?(_ value: Double) {
        guard value.isFinite else { return nil }
        if value == value.rounded(), abs(value) < 1e15 {
            text = String(Int(value))
        } else {
            text = String(value)  // Swift's shortest representation, e.g. 0.25, 1e-05, 1e+16
        }
    }

    /// A number from its literal; `nil` unless `literal` is exactly one RFC 8259 §6 number
    /// (no sign `+`, no leading zeros, no `.5`, no surrounding space).
    public init?(literal: String) {
        var parser = JSONParser(bytes: Array(literal.utf8))
        guard parser.index < parser.bytes.count, (try? parser.parseNumber()) != nil, parser.index == parser.bytes.count
        else { return nil }
        text = literal
    }

    /// A literal the parser already checked.
    init(checked text: String) { self.text = text }

    /// The value as `Int` when the literal is an integer (no fraction, no exponent) in range;
    /// `1.0`, `1e3` and `99999999999999999999` are `nil`.
    public var int: Int? { Int(text) }

    /// The value as `Int64` under the same rule as ``int``.
    public var int64: Int64? { Int64(text) }

    /// The nearest `Double`; ±infinity when the literal is beyond its range (`1e999`), so check
    /// `isFinite` before using it as a duration or a count.
    public var double: Double {
        // The text is valid grammar, which `Double.init(_: String)` always reads.
        Double(text) ?? .nan
    }

    /// The literal.
    public var description: String { text }
}

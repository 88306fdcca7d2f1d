/// The one JSON value of AstraSIP (RFC 8259): what the tools write as JSON Lines and read as
/// lines, what the push emulators and the gateway answer and parse, what the clients send.
/// Objects keep their key order, so every output line is byte-stable; numbers keep their literal
/// (``JSONNumber``), so parse → encode gives back the same text.
///
/// Literals work: `["registered": true, "expires": 3600, "server": "pbx.example.com:5061"]`.
/// Read with `parse(_:limits:)` (UTF-8 bytes or a `String`), write with ``jsonText``.
public indirect enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// A number, kept as its literal (`3600`, `-1.5e3`).
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// An integer number.
    public static func int<Integer: BinaryInteger>(_ value: Integer) -> JSONValue { .number(JSONNumber(value)) }

    /// A double number in its shortest text; NaN and the infinities become `null` (JSON has
    /// no literal for them, RFC 8259 §6).
    public static func double(_ value: Double) -> JSONValue { JSONNumber(value).map(JSONValue.number) ?? .null }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements.map { (key: $0.0, value: $0.1) }))
    }
}

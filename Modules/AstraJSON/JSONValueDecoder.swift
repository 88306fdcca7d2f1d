/// Decodes `Decodable` types from a ``JSONValue`` — the one parser's value — so typed readers
/// (astra-pushsim's scenario files, the client protocol's lines) need no second JSON parser.
///
/// Numbers are read from their literal: an integer type takes an integer literal in its range
/// (or an integral one written with a fraction or exponent, `1.0`, `1e3`), anything else is a
/// `DecodingError.dataCorrupted` naming the number (`not an integer: 1.5`, `number out of range
/// for Int32: 1e99`) — never truncated. Type mismatches, missing keys and missing values are the usual `DecodingError`s with
/// the coding path. With ``convertFromSnakeCase`` keys are matched the way Foundation's
/// `JSONDecoder.KeyDecodingStrategy.convertFromSnakeCase` matches them (`push_id` → `pushId`,
/// `max_voip_payload_bytes` → `maxVoipPayloadBytes`), so a type decodes the same as before.
public struct JSONValueDecoder: Sendable {
    /// Match `snake_case` object keys to `camelCase` coding keys.
    public var convertFromSnakeCase: Bool

    public init(convertFromSnakeCase: Bool = false) { self.convertFromSnakeCase = convertFromSnakeCase }

    /// A `T` from a parsed value.
    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try T(from: ValueDecoder(value: value, codingPath: [], options: self))
    }

    /// A `T` from JSON text: a ``JSONParseError`` if the text is not JSON, else as ``decode(_:from:)-(_,JSONValue)``.
    public func decode<T: Decodable, Bytes: Collection<UInt8>>(
        _ type: T.Type, from bytes: Bytes, limits: JSONParser.Limits = .standard
    ) throws -> T {
        try decode(type, from: try JSONValue.parse(bytes, limits: limits))
    }

    /// Foundation's rule: a key with inner `_`s becomes its first word lowercased and the other
    /// words capitalized (first letter upper, the rest lower), the `_`s removed; leading and
    /// trailing underscores kept; a key without an inner `_` unchanged (`URL_value` → `urlValue`).
    static func camelCase(_ key: String) -> String {
        guard key.contains("_") else { return key }
        let scalars = Array(key.unicodeScalars)
        guard let first = scalars.firstIndex(where: { $0 != "_" }) else { return key }
        var last = scalars.count - 1
        while scalars[last] == "_" { last -= 1 }
        let words = String(String.UnicodeScalarView(scalars[first...last])).split(separator: "_")
        guard words.count > 1 else { return key }
        let joined =
            words[0].lowercased()
            + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst().lowercased() }.joined()
        return String(String.UnicodeScalarView(scalars[..<first])) + joined
            + String(String.UnicodeScalarView(scalars[(last + 1)...]))
    }
}

/// A coding key for array positions and ad-hoc names in coding paths.
struct JSONCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }
}

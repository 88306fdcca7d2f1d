/// Reading JSON text (``JSONParser``).
extension JSONValue {
    /// Parses exactly one JSON value from UTF-8 bytes; whitespace around it is allowed.
    public static func parse<Bytes: Collection<UInt8>>(
        _ bytes: Bytes, limits: JSONParser.Limits = .standard
    ) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes: Array(bytes), limits: limits)
        return try parser.parseDocument()
    }

    /// Parses exactly one JSON value from text.
    public static func parse(_ text: String, limits: JSONParser.Limits = .standard) throws(JSONParseError) -> JSONValue
    {
        try parse(Array(text.utf8), limits: limits)
    }
}

extension JSONObject {
    /// Parses a text that must be one JSON object; anything else is a ``JSONParseError/Code/syntax``
    /// error at byte 0 naming what it was.
    public static func parse<Bytes: Collection<UInt8>>(
        _ bytes: Bytes, limits: JSONParser.Limits = .standard
    ) throws(JSONParseError) -> JSONObject {
        let value = try JSONValue.parse(bytes, limits: limits)
        guard case .object(let object) = value else {
            throw JSONParseError(.syntax, at: 0, "expected an object, got \(value.typeName)")
        }
        return object
    }
}

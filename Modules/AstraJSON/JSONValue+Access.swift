/// Reading a parsed value: member lookup, typed views, the type's name for error messages.
extension JSONValue {
    /// The value of `key` when this is an object (the last occurrence of a repeated key), else `nil`.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let object) = self else { return nil }
        return object[key]
    }

    /// A short name of the value's JSON type, for error messages (`expected a string, got number`).
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// The string, when this is one.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The boolean, when this is one.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The number, when this is one.
    public var numberValue: JSONNumber? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// The number as `Int`, when this is an integer literal in range (``JSONNumber/int``).
    public var intValue: Int? { numberValue?.int }

    /// The number as `Int64`, when this is an integer literal in range (``JSONNumber/int64``).
    public var int64Value: Int64? { numberValue?.int64 }

    /// The number as `Double` (±infinity beyond its range), when this is a number.
    public var doubleValue: Double? { numberValue?.double }

    /// The elements, when this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The object, when this is one.
    public var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }
}

/// Compact JSON text, keys in model order, no whitespace: one line per value.
extension JSONValue {
    /// The compact JSON text (RFC 8259); a parsed number is written as its literal.
    public var jsonText: String {
        var out = ""
        write(to: &out)
        return out
    }

    /// Appends the compact JSON text to `out` (the tools' event lines are written in one pass).
    public func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .number(let number): out += number.text
        case .string(let value): Self.writeString(value, to: &out)
        case .array(let values):
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += "," }
                value.write(to: &out)
            }
            out += "]"
        case .object(let object): object.write(to: &out)
        }
    }

    /// Appends `value` as a JSON string literal (``JSONString``).
    public static func writeString(_ value: String, to out: inout String) { JSONString.write(value, to: &out) }
}

extension JSONObject {
    /// The compact JSON text of the object.
    public var jsonText: String { JSONValue.object(self).jsonText }

    /// Appends the compact JSON text of the object to `out`.
    public func write(to out: inout String) {
        out += "{"
        for (index, entry) in entries.enumerated() {
            if index > 0 { out += "," }
            JSONValue.writeString(entry.key, to: &out)
            out += ":"
            entry.value.write(to: &out)
        }
        out += "}"
    }
}

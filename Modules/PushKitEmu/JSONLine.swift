/// A tiny JSON object writer for the timeline: fixed key order, no Foundation, no formatters.
public struct JSONLine: Sendable {
    private var text = "{"
    private var first = true

    /// A line that starts with `"event"` and `"t"` (TOOLS.md: every event line has both).
    public init(event: String, t: Int64) {
        add("event", event)
        add("t", t)
    }

    /// An object with no fields yet (nested objects, the client protocol's lines).
    public init() {}

    private mutating func key(_ key: String) {
        if !first { text += "," }
        first = false
        text += "\"" + key + "\":"
    }

    /// Adds a string field.
    public mutating func add(_ name: String, _ value: String) {
        key(name)
        text += JSONLine.quote(value)
    }

    /// Adds an integer field.
    public mutating func add<I: BinaryInteger>(_ name: String, _ value: I) {
        key(name)
        text += String(value)
    }

    /// Adds a boolean field.
    public mutating func add(_ name: String, _ value: Bool) {
        key(name)
        text += value ? "true" : "false"
    }

    /// Adds an array of strings.
    public mutating func add(_ name: String, _ values: [String]) {
        key(name)
        text += "[" + values.map(JSONLine.quote).joined(separator: ",") + "]"
    }

    /// Adds a nested object.
    public mutating func add(_ name: String, object: JSONLine) {
        key(name)
        text += object.string
    }

    /// Adds an array of objects.
    public mutating func add(_ name: String, objects: [JSONLine]) {
        key(name)
        text += "[" + objects.map(\.string).joined(separator: ",") + "]"
    }

    /// The finished object.
    public var string: String { text + "}" }

    /// A JSON string literal (RFC 8259 §7 escapes).
    public static func quote(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}

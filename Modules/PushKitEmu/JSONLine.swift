import AstraJSON

/// A timeline or client-protocol line being built: a `JSONObject` with a builder API, written by
/// the one encoder and escaper of AstraJSON (so pushsim's lines escape DEL and U+2028/U+2029 as
/// every other tool's do, docs/decisions.md D40).
public struct JSONLine: Sendable {
    /// The fields so far, in the order they were added.
    public private(set) var object = JSONObject()

    /// A line that starts with `"event"` and `"t"` (TOOLS.md: every event line has both).
    public init(event: String, t: Int64) {
        add("event", event)
        add("t", t)
    }

    /// An object with no fields yet (nested objects, the client protocol's lines).
    public init() {}

    private mutating func append(_ name: String, _ value: JSONValue) {
        object.entries.append((key: name, value: value))
    }

    /// Adds a string field.
    public mutating func add(_ name: String, _ value: String) { append(name, .string(value)) }

    /// Adds an integer field (one beyond `Int` is written as a double).
    public mutating func add<I: BinaryInteger>(_ name: String, _ value: I) {
        append(name, Int(exactly: value).map(JSONValue.int) ?? .double(Double(value)))
    }

    /// Adds a boolean field.
    public mutating func add(_ name: String, _ value: Bool) { append(name, .bool(value)) }

    /// Adds an array of strings.
    public mutating func add(_ name: String, _ values: [String]) { append(name, .array(values.map(JSONValue.string))) }

    /// Adds a nested object.
    public mutating func add(_ name: String, object: JSONLine) { append(name, .object(object.object)) }

    /// Adds an array of objects.
    public mutating func add(_ name: String, objects: [JSONLine]) {
        append(name, .array(objects.map { .object($0.object) }))
    }

    /// The finished object as compact JSON text.
    public var string: String { object.jsonText }

    /// A JSON string literal (RFC 8259 §7), by the one escaper `JSONString`.
    public static func quote(_ s: String) -> String { JSONString.quoted(s) }
}

/// The one JSON value of AstraSIP (RFC 8259): what the tools write as JSON Lines, the push
/// emulators and the gateway answer, and the clients send. Objects keep their key order, so every
/// output line is byte-stable.
///
/// Literals work: `["registered": true, "expires": 3600, "server": "pbx.example.com:5061"]`.
public indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)
}

/// An ordered list of key/value pairs: the JSON object model (keys keep insertion order).
public struct JSONObject: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    public var entries: [(key: String, value: JSONValue)]

    public init() { entries = [] }
    public init(_ entries: [(key: String, value: JSONValue)]) { self.entries = entries }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        entries = elements.map { (key: $0.0, value: $0.1) }
    }

    /// The value for `key`, or `nil`. Setting replaces in place, or appends a new key at the end.
    public subscript(key: String) -> JSONValue? {
        get { entries.first { $0.key == key }?.value }
        set {
            let index = entries.firstIndex { $0.key == key }
            switch (index, newValue) {
            case let (index?, value?): entries[index].value = value
            case let (index?, nil): entries.remove(at: index)
            case let (nil, value?): entries.append((key: key, value: value))
            case (nil, nil): break
            }
        }
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.entries.count == rhs.entries.count
            && zip(lhs.entries, rhs.entries).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }
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

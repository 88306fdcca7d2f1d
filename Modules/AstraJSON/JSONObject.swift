/// A JSON object (RFC 8259 §4): key/value pairs in order. Built objects keep insertion order;
/// parsed ones keep source order, repeated keys included, so re-encoding gives the same text.
///
/// Lookup by key takes the last occurrence of a repeated key (what JavaScript's `JSON.parse`
/// keeps), so every reader of a hostile `{"exp":1,"exp":2}` sees the same value.
public struct JSONObject: Sendable, Hashable, ExpressibleByDictionaryLiteral, RandomAccessCollection {
    public var entries: [(key: String, value: JSONValue)]

    public init() { entries = [] }
    public init(_ entries: [(key: String, value: JSONValue)]) { self.entries = entries }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        entries = elements.map { (key: $0.0, value: $0.1) }
    }

    /// The value for `key` (its last occurrence), or `nil`. Setting replaces that occurrence in
    /// place or appends a new key at the end; setting `nil` removes every occurrence.
    public subscript(key: String) -> JSONValue? {
        get { entries.last { $0.key == key }?.value }
        set {
            let index = entries.lastIndex { $0.key == key }
            switch (index, newValue) {
            case let (index?, value?): entries[index].value = value
            case (_?, nil): entries.removeAll { $0.key == key }
            case let (nil, value?): entries.append((key: key, value: value))
            case (nil, nil): break
            }
        }
    }

    /// Appends `key` (even if present: the caller decides; lookup then sees this one).
    public mutating func append(_ key: String, _ value: JSONValue) { entries.append((key: key, value: value)) }

    // The entries as a collection: `for (key, value) in object`, `object.count`, `object.map`.
    public var startIndex: Int { entries.startIndex }
    public var endIndex: Int { entries.endIndex }
    public subscript(position: Int) -> (key: String, value: JSONValue) { entries[position] }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.entries.count == rhs.entries.count
            && zip(lhs.entries, rhs.entries).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(entries.count)
        for entry in entries {
            hasher.combine(entry.key)
            hasher.combine(entry.value)
        }
    }
}

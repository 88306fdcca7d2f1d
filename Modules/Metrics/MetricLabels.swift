/// The label set of one time series: ordered name/value pairs, rendered in the order given so
/// the exposition is byte-stable.
///
/// Label names follow the Prometheus data model (`[a-zA-Z_][a-zA-Z0-9_]*`, no leading `__`,
/// which Prometheus reserves); a bad name is a programming error and traps, because names are
/// constants of the code that exports them. Values are any text — they are escaped when
/// rendered (``MetricText/labelValue(_:)``), so a line name from a file cannot break a line of
/// the exposition. What goes into a value is the exporter's choice: no secret, no Call-ID and no
/// user-supplied free text (they would leak or explode the number of series).
public struct MetricLabels: Sendable, Hashable, ExpressibleByDictionaryLiteral {
    public struct Pair: Sendable, Hashable {
        public let name: String
        public let value: String
    }

    public private(set) var pairs: [Pair]

    public init() { pairs = [] }

    /// Pairs in the order given; a name given twice keeps its last value in its first place.
    public init(_ pairs: [(String, String)]) {
        self.pairs = []
        for (name, value) in pairs { self[name] = value }
    }

    public init(dictionaryLiteral elements: (String, String)...) { self.init(elements) }

    /// The value of label `name`; setting nil removes it.
    public subscript(name: String) -> String? {
        get { pairs.first { $0.name == name }?.value }
        set {
            precondition(MetricLabels.isValidName(name), "invalid label name \(name)")
            if let index = pairs.firstIndex(where: { $0.name == name }) {
                if let newValue { pairs[index] = Pair(name: name, value: newValue) } else { pairs.remove(at: index) }
            } else if let newValue {
                pairs.append(Pair(name: name, value: newValue))
            }
        }
    }

    public var isEmpty: Bool { pairs.isEmpty }

    /// A label name of the data model: `[a-zA-Z_][a-zA-Z0-9_]*`, not starting with `__`.
    public static func isValidName(_ name: String) -> Bool {
        guard let first = name.utf8.first, !name.hasPrefix("__") else { return false }
        func letter(_ c: UInt8) -> Bool { (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F }
        return letter(first) && name.utf8.allSatisfy { letter($0) || ($0 >= 0x30 && $0 <= 0x39) }
    }
}

/// A threshold range of the Monitoring Plugins development guidelines ("Threshold and ranges"):
///
/// | Text | Alert when the value is |
/// |---|---|
/// | `10` | < 0 or > 10 (outside 0…10) |
/// | `10:` | < 10 |
/// | `~:10` | > 10 |
/// | `10:20` | < 10 or > 20 |
/// | `@10:20` | ≥ 10 and ≤ 20 (inside) |
///
/// Pure; ``text`` is what the user wrote, repeated in perfdata.
public struct MonitoringRange: Sendable, Hashable, CustomStringConvertible {
    public let start: Double
    public let end: Double
    /// `@`: alert inside the range instead of outside.
    public let inside: Bool
    public let text: String

    /// Parses `text`; nil when it is not a range (`start` must not exceed `end`).
    public init?(_ text: String) {
        var rest = Substring(text.trimmingSpaces)
        guard !rest.isEmpty else { return nil }
        inside = rest.first == "@"
        if inside { rest = rest.dropFirst() }
        let low: Double, high: Double
        if let colon = rest.firstIndex(of: ":") {
            let left = rest[..<colon], right = rest[rest.index(after: colon)...]
            if left == "~" {
                low = -.infinity
            } else if let value = Self.number(left) {
                low = value
            } else {
                return nil
            }
            if right.isEmpty {
                high = .infinity
            } else if let value = Self.number(right) {
                high = value
            } else {
                return nil
            }
        } else {
            guard let value = Self.number(rest) else { return nil }
            (low, high) = (0, value)
        }
        guard low <= high else { return nil }
        start = low
        end = high
        self.text = text.trimmingSpaces
    }

    /// Whether `value` raises the alert.
    public func alerts(_ value: Double) -> Bool {
        let within = value >= start && value <= end
        return inside ? within : !within
    }

    public var description: String { text }

    private static func number(_ text: Substring) -> Double? {
        guard let value = Double(text), value.isFinite else { return nil }
        return value
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}

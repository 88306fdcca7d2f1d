/// The type of an option's or argument's value; the parser validates values against it.
public enum ValueKind: Sendable, Equatable {
    /// Any text.
    case string
    /// A decimal integer (`Int`).
    case int
    /// A decimal number (`Double`).
    case double
    /// One of a fixed list, matched case-insensitively and stored in the listed spelling.
    case choice([String])

    /// The `(values: …)` hint for help text, if any.
    var choicesText: String? {
        if case .choice(let values) = self { return values.joined(separator: ", ") }
        return nil
    }

    /// Validates `raw`; returns the stored form or a reason (without the option name).
    func validate(_ raw: String) -> Result<String, ValueError> {
        switch self {
        case .string:
            return .success(raw)
        case .int:
            guard let value = Int(raw) else { return .failure(ValueError("expected an integer, got '\(raw)'")) }
            return .success(String(value))
        case .double:
            guard let value = Double(raw), value.isFinite else {
                return .failure(ValueError("expected a number, got '\(raw)'"))
            }
            return .success(raw)
        case .choice(let values):
            if let match = values.first(where: { $0.lowercased() == raw.lowercased() }) { return .success(match) }
            return .failure(ValueError("expected one of \(values.joined(separator: ", ")), got '\(raw)'"))
        }
    }
}

/// Why a value did not fit its ``ValueKind``.
struct ValueError: Error {
    var reason: String
    init(_ reason: String) { self.reason = reason }
}

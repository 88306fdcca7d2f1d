/// How options and their help read in help, manual and Markdown output.
extension OptionSpec {
    /// `-o, --output <file>`, `--keep`, `-v, --verbose`.
    var helpLabel: String {
        var names: [String] = []
        if let short { names.append("-\(short)") }
        if let long { names.append("--\(long)") }
        var label = names.joined(separator: ", ")
        if takesValue { label += " <\(valueName)>" }
        if case .optionalValue = kind { label += "[=<\(valueName)>]" }
        return label
    }

    /// The help sentence plus `(values: …)`, `(range: …)` and `(default: …)` hints.
    var helpText: String {
        var text = help
        if let kind = valueKind, let choices = kind.choicesText { text += " (values: \(choices))" }
        if let kind = valueKind, let range = kind.rangeText { text += " (range: \(range))" }
        if let defaultValue { text += " (default: \(defaultValue))" }
        if isRepeatable { text += " (repeatable)" }
        return text
    }
}

extension OptionSpec {
    /// The kind of value the option takes, required or optional.
    var valueKind: ValueKind? {
        switch kind {
        case .value(let kind), .optionalValue(let kind): kind
        case .flag, .counter: nil
        }
    }
}

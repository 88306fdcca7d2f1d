/// The lexical pieces both exposition formats share: escaping of label values and help text,
/// and number formatting.
///
/// Prometheus text format 0.0.4 and OpenMetrics 1.0 escape a label value the same way (`\\`,
/// `\"`, `\n`); they differ for `# HELP`: text 0.0.4 knows only `\\` and `\n` there (any other
/// escape is a parse error), OpenMetrics also requires `\"` (its escaped-string excludes a bare
/// double quote).
public enum MetricText {
    /// A label value for `name="…"`: backslash, double quote and line feed escaped.
    public static func labelValue(_ value: String) -> String {
        escape(value, quote: true)
    }

    /// The text after `# HELP name `, escaped as `format` requires; never spans a line.
    public static func help(_ text: String, format: ExpositionFormat) -> String {
        escape(text, quote: format == .openMetrics)
    }

    private static func escape(_ text: String, quote: Bool) -> String {
        guard text.utf8.contains(where: { $0 == 0x5C || $0 == 0x0A || (quote && $0 == 0x22) }) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\"" where quote: out += "\\\""
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// A sample value: `+Inf`, `-Inf`, `NaN` as both formats spell them; an integral value
    /// below 2^53 without a fraction (a counter reads `3`, a Unix time its exact seconds);
    /// anything else in Swift's shortest round-trip form (`0.005`, `1e-07`), which both parsers
    /// read back to the same double.
    public static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 9_007_199_254_740_992 { return String(Int64(value)) }
        return value.description
    }

    /// A histogram bound for `le`: as ``number(_:)``, and in OpenMetrics an integral bound
    /// keeps `.0` (`le="1.0"`), the canonical form its clients write, so the same bucket has
    /// the same label value whichever client exported it.
    public static func bound(_ value: Double, format: ExpositionFormat) -> String {
        let text = number(value)
        guard format == .openMetrics, value.isFinite, !text.contains(where: { $0 == "." || $0 == "e" }) else { return text }
        return text + ".0"
    }
}

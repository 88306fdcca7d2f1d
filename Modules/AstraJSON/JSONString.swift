/// The one JSON string escaper (RFC 8259 §7) of AstraSIP: every tool's JSON Lines, the line
/// model, the push emulators and the gateway's API write strings through it, so they all escape
/// the same way.
///
/// Escaped: `"` and `\`, the C0 controls (the short forms `\n \r \t \b \f` where JSON has them,
/// else `\u00XX`), and three characters RFC 8259 allows raw: DEL (U+007F: a terminal control a
/// `tail -f` or a log viewer would act on), and U+2028/U+2029 (line terminators to JavaScript
/// before ES2019, so a JSON line pasted into a script or read by an older JS consumer stays one
/// line). jq and every RFC 8259 parser read both forms; escaping is the safe side for the rest.
/// Everything else, non-ASCII included, is written as UTF-8.
public enum JSONString {
    /// Appends `value` as a quoted JSON string literal.
    public static func write(_ value: String, to out: inout String) {
        out += "\""
        // Fast path: printable ASCII without quote or backslash needs no escaping.
        if value.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x5C }) {
            out += value
            out += "\""
            return
        }
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case let c where c.value < 0x20 || c.value == 0x7F || c.value == 0x2028 || c.value == 0x2029:
                let hex = String(c.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    /// `value` as a quoted JSON string literal.
    public static func quoted(_ value: String) -> String {
        var out = ""
        write(value, to: &out)
        return out
    }
}

/// The one JSON parser of AstraSIP (RFC 8259): lines, API bodies, tokens, device hellos, trace
/// and timeline files are all read by it into ``JSONValue``.
///
/// Recursive descent over bytes, one pass, no Foundation. Bounded: nesting depth and input size
/// have limits (RFC 8259 §9 lets a parser set them), so hostile input costs at most linear time
/// and a bounded stack. It never traps; every refusal is a ``JSONParseError`` with the byte
/// offset. Exact to the grammar: no leading zeros, no `+`, no trailing commas, no comments, a raw
/// control character in a string is refused, lone surrogates are refused (§8.2), strings must be
/// valid UTF-8 (§8.1). Numbers keep their literal (``JSONNumber``). Duplicate keys are kept in
/// order (§4 leaves them to the implementation); lookup takes the last, as JavaScript does.
/// Input from outside that configures something (a line, an API body, a token) is read with
/// `Limits.uniqueKeys` instead: a repeated member name is refused, so no reader depends on
/// which of two values a parser happens to keep (RFC 8259 §4: names SHOULD be unique).
public struct JSONParser {
    /// How much a text may ask of the parser.
    public struct Limits: Sendable, Hashable {
        /// Arrays and objects open at once. 64 is far above any document we read (a line is
        /// depth 1, a JWT or an FCM message 3) and keeps the recursion well inside a thread stack.
        public var maxDepth: Int
        /// Bytes of text, whitespace included. The callers' own limits (a line file, an HTTP
        /// body) are smaller; this is the backstop for a reader that has none.
        public var maxBytes: Int
        /// Refuse an object that names a member twice (``JSONParseError/Code/duplicateKey``,
        /// naming it). RFC 8259 §4 says names SHOULD be unique and leaves repeats to the
        /// implementation: two readers of `{"user":"1001","user":"1002"}` may disagree on the
        /// user, and a check made on one value may not hold for the other. Off by default
        /// (trace and load files keep what they were given); on for lines, API bodies, tokens.
        public var uniqueKeys: Bool

        public init(maxDepth: Int = 64, maxBytes: Int = 16 << 20, uniqueKeys: Bool = false) {
            self.maxDepth = maxDepth
            self.maxBytes = maxBytes
            self.uniqueKeys = uniqueKeys
        }

        /// The defaults: depth 64, 16 MiB, repeated names kept.
        public static let standard = Limits()
        /// The defaults with repeated member names refused: how lines, platform API answers
        /// and JWTs are read.
        public static let uniqueKeys = Limits(uniqueKeys: true)
    }

    let bytes: [UInt8]
    let limits: Limits
    var index = 0
    var depth = 0

    init(bytes: [UInt8], limits: Limits = .standard) {
        self.bytes = bytes
        self.limits = limits
    }

    func fail(_ what: String) -> JSONParseError { JSONParseError(.syntax, at: index, what) }

    func fail(_ code: JSONParseError.Code, _ what: String) -> JSONParseError { JSONParseError(code, at: index, what) }

    /// Reads exactly one value with optional whitespace around it.
    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        guard bytes.count <= limits.maxBytes else {
            throw JSONParseError(.tooLarge, at: 0, "text of \(bytes.count) bytes over \(limits.maxBytes)")
        }
        skipSpace()
        if index == bytes.count { throw JSONParseError(.empty, at: 0, "empty input") }
        let value = try parseValue()
        skipSpace()
        if index != bytes.count { throw fail("unexpected text after the value") }
        return value
    }

    /// RFC 8259 §2: space, tab, line feed, carriage return.
    mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    mutating func parseValue() throws(JSONParseError) -> JSONValue {
        skipSpace()
        guard index < bytes.count else { throw fail("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw fail("unexpected character \(Self.shown(bytes[index]))")
        }
    }

    /// A byte for an error message: printable ASCII quoted, anything else as hex (a control
    /// character or a UTF-8 lead byte never reaches the terminal raw).
    static func shown(_ byte: UInt8) -> String {
        if byte >= 0x20, byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        let hex = String(byte, radix: 16, uppercase: true)
        return "0x" + (hex.count < 2 ? "0" : "") + hex
    }

    /// True when `key` is already a member of `object` (`Limits.uniqueKeys`).
    static func repeats(_ key: String, in object: JSONObject, seen: inout Set<String>) -> Bool {
        if object.entries.count < 16 { return object.entries.contains { $0.key == key } }
        if seen.isEmpty { seen = Set(object.entries.map(\.key)) }
        return !seen.insert(key).inserted
    }

    /// A member name for an error message: at most 40 characters, JSON-quoted (controls
    /// escaped) and C1 controls replaced, so a hostile name neither floods nor drives a terminal.
    static func shownKey(_ key: String) -> String {
        var cut = ""
        var count = 0
        for scalar in key.unicodeScalars {
            if count == 40 { break }
            cut.unicodeScalars.append((0x80...0x9F).contains(scalar.value) ? "?" : scalar)
            count += 1
        }
        return JSONString.quoted(cut) + (count < key.unicodeScalars.count ? "…" : "")
    }

    mutating func literal(_ word: StaticString) throws(JSONParseError) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw fail("expected \(word)") }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
            throw fail("expected \(word)")
        }
        index += count
    }

    mutating func enter() throws(JSONParseError) {
        depth += 1
        if depth > limits.maxDepth { throw fail(.tooDeep, "nesting deeper than \(limits.maxDepth)") }
    }

    mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var object = JSONObject()
        // Only when refusing repeats: a line's dozen members are compared in place; past 16 a
        // hash set of the names keeps a hostile object of many members linear.
        var seen = Set<String>()
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(object)
        }
        while true {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a key string") }
            let keyStart = index
            let key = try parseString()
            if limits.uniqueKeys, Self.repeats(key, in: object, seen: &seen) {
                throw JSONParseError(.duplicateKey, at: keyStart, "member \(Self.shownKey(key)) given twice")
            }
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            index += 1
            object.entries.append((key: key, value: try parseValue()))
            skipSpace()
            guard index < bytes.count else { throw fail("unterminated object") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(object)
            }
            throw fail("expected ',' or '}'")
        }
    }

    mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var items: [JSONValue] = []
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(items)
        }
        while true {
            items.append(try parseValue())
            skipSpace()
            guard index < bytes.count else { throw fail("unterminated array") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(items)
            }
            throw fail("expected ',' or ']'")
        }
    }

    /// RFC 8259 §6: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, kept as text.
    mutating func parseNumber() throws(JSONParseError) -> JSONNumber {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        if index < bytes.count, bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, bytes[index] &- 0x30 < 10 { throw fail("leading zero in a number") }
        } else if digits() == 0 {
            throw fail("expected digits")
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw fail("expected digits after '.'") }
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard digits() > 0 else { throw fail("expected exponent digits") }
        }
        return JSONNumber(checked: String(decoding: bytes[start..<index], as: UTF8.self))
    }

    mutating func digits() -> Int {
        let start = index
        while index < bytes.count, bytes[index] &- 0x30 < 10 { index += 1 }
        return index - start
    }

    mutating func hex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail(.badString, "short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case 0x30...0x39: digit = UInt32(byte - 0x30)
            case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
            case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
            default: throw fail(.badString, "bad hex digit in \\u escape")
            }
            value = value * 16 + digit
            index += 1
        }
        return value
    }

    /// RFC 8259 §7: a quoted string; escapes decoded, UTF-8 checked (§8.1).
    mutating func parseString() throws(JSONParseError) -> String {
        index += 1
        // Fast path: a run of plain ASCII up to the closing quote becomes the string directly.
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                // ASCII is valid UTF-8: skip the validating initializer (~1k instructions per
                // string, most of reading a load file's lines).
                return String(decoding: bytes[start..<index - 1], as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 || byte >= 0x80 { break }
            index += 1
        }
        var out = Array(bytes[start..<index])
        out.reserveCapacity(out.count + 16)
        var ascii = true
        while true {
            guard index < bytes.count else { throw fail(.badString, "unterminated string") }
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                if ascii { return String(decoding: out, as: UTF8.self) }
                guard let text = String(validating: out, as: UTF8.self) else {
                    throw fail(.badString, "string is not valid UTF-8")
                }
                return text
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { throw fail(.badString, "unterminated escape") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard index + 2 <= bytes.count, bytes[index] == 0x5C, bytes[index + 1] == UInt8(ascii: "u")
                        else {
                            throw fail(.badString, "unpaired surrogate")
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw fail(.badString, "bad low surrogate") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw fail(.badString, "invalid \\u escape") }
                    if unicode.value >= 0x80 { ascii = false }
                    guard let encoded = UTF8.encode(unicode) else { throw fail(.badString, "invalid \\u escape") }
                    out.append(contentsOf: encoded)
                default:
                    let shown =
                        escape >= 0x20 && escape < 0x7F
                        ? "'\\\(Character(Unicode.Scalar(escape)))'" : Self.shown(escape)
                    throw fail(.badString, "bad escape \(shown)")
                }
            case 0x00..<0x20: throw fail(.badString, "control character in string")
            default:
                if byte >= 0x80 { ascii = false }
                out.append(byte)
            }
        }
    }
}

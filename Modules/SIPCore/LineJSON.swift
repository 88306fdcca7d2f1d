import AstraJSON

/// A small JSON value (RFC 8259) used to read and write line objects without Foundation.
///
/// Objects keep their key order so written lines are byte-stable. Numbers keep their source
/// text, so `expires` is read exactly. The parser never traps; errors carry the byte offset.
public enum LineJSON: Sendable, Hashable {
    case null
    case bool(Bool)
    /// The number's literal text (`3600`, `-1.5e3`).
    case number(String)
    case string(String)
    case array([LineJSON])
    /// Members in source order; a repeated key keeps its last value on lookup.
    case object([(String, LineJSON)])

    public static func == (lhs: LineJSON, rhs: LineJSON) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.number(let a), .number(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a.map(\.0) == b.map(\.0) && a.map(\.1) == b.map(\.1)
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let b): hasher.combine(b)
        case .number(let n): hasher.combine(n)
        case .string(let s): hasher.combine(s)
        case .array(let a): hasher.combine(a)
        case .object(let o):
            for (k, v) in o {
                hasher.combine(k)
                hasher.combine(v)
            }
        }
    }

    /// The value of `key` in an object (last occurrence), or nil.
    public subscript(key: String) -> LineJSON? {
        guard case .object(let members) = self else { return nil }
        return members.last(where: { $0.0 == key })?.1
    }

    /// A short name of the value's JSON type, for error messages.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// Parses one JSON value from UTF-8 bytes; surrounding whitespace is allowed.
    public static func parse<Bytes: Collection<UInt8>>(_ bytes: Bytes) throws(LineError) -> LineJSON {
        var parser = LineJSONParser(bytes: Array(bytes))
        return try parser.parseDocument()
    }

    /// Parses one JSON value from text.
    public static func parse(_ text: String) throws(LineError) -> LineJSON {
        try parse(Array(text.utf8))
    }

    /// Compact JSON text (no spaces, no newline), keys in stored order.
    public var serialized: String {
        var out = ""
        write(to: &out)
        return out
    }

    func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): out += n
        case .string(let s): LineJSON.writeString(s, to: &out)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                item.write(to: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (i, (key, value)) in members.enumerated() {
                if i > 0 { out += "," }
                LineJSON.writeString(key, to: &out)
                out += ":"
                value.write(to: &out)
            }
            out += "}"
        }
    }

    /// RFC 8259 §7 string escaping: quote, backslash and control characters.
    static func writeString(_ s: String, to out: inout String) { JSONString.write(s, to: &out) }
}

/// Recursive-descent JSON parser over bytes (RFC 8259 grammar), depth-limited.
struct LineJSONParser {
    let bytes: [UInt8]
    var index = 0
    var depth = 0
    static let maxDepth = 64

    init(bytes: [UInt8]) { self.bytes = bytes }

    func fail(_ what: String) -> LineError {
        LineError(.invalidJSON, "invalid JSON at byte \(index): \(what)")
    }

    mutating func skipSpace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    mutating func parseDocument() throws(LineError) -> LineJSON {
        skipSpace()
        if index == bytes.count { throw LineError(.invalidJSON, "invalid JSON: empty input") }
        let value = try parseValue()
        skipSpace()
        if index != bytes.count { throw fail("unexpected text after the value") }
        return value
    }

    mutating func parseValue() throws(LineError) -> LineJSON {
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
        default: throw fail("unexpected character '\(Character(Unicode.Scalar(bytes[index])))'")
        }
    }

    mutating func literal(_ word: String) throws(LineError) {
        let w = Array(word.utf8)
        guard index + w.count <= bytes.count, Array(bytes[index..<index + w.count]) == w else {
            throw fail("expected \(word)")
        }
        index += w.count
    }

    mutating func enter() throws(LineError) {
        depth += 1
        if depth > LineJSONParser.maxDepth { throw fail("nesting deeper than \(LineJSONParser.maxDepth)") }
    }

    mutating func parseObject() throws(LineError) -> LineJSON {
        try enter()
        defer { depth -= 1 }
        index += 1
        var members: [(String, LineJSON)] = []
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a key string") }
            let key = try parseString()
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            index += 1
            members.append((key, try parseValue()))
            skipSpace()
            guard index < bytes.count else { throw fail("unterminated object") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            throw fail("expected ',' or '}'")
        }
    }

    mutating func parseArray() throws(LineError) -> LineJSON {
        try enter()
        defer { depth -= 1 }
        index += 1
        var items: [LineJSON] = []
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

    mutating func parseNumber() throws(LineError) -> String {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        func digits(_ p: inout LineJSONParser) -> Int {
            let s = p.index
            while p.index < p.bytes.count, (0x30...0x39).contains(p.bytes[p.index]) { p.index += 1 }
            return p.index - s
        }
        guard digits(&self) > 0 else { throw fail("expected digits") }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits(&self) > 0 else { throw fail("expected digits after '.'") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard digits(&self) > 0 else { throw fail("expected exponent digits") }
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    mutating func hex4() throws(LineError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail("short \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[index]
            let d: UInt32
            switch b {
            case 0x30...0x39: d = UInt32(b - 0x30)
            case 0x41...0x46: d = UInt32(b - 0x41 + 10)
            case 0x61...0x66: d = UInt32(b - 0x61 + 10)
            default: throw fail("bad hex digit in \\u escape")
            }
            v = v * 16 + d
            index += 1
        }
        return v
    }

    mutating func parseString() throws(LineError) -> String {
        index += 1
        var out: [UInt8] = []
        out.reserveCapacity(32)
        var ascii = true
        while true {
            guard index < bytes.count else { throw fail("unterminated string") }
            let b = bytes[index]
            index += 1
            switch b {
            case UInt8(ascii: "\""):
                // ASCII is valid UTF-8: skip the validating initializer (~1k instructions per
                // string, most of reading a load file's lines).
                if ascii { return String(decoding: out, as: UTF8.self) }
                guard let s = String(validating: out, as: UTF8.self) else { throw fail("string is not valid UTF-8") }
                return s
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { throw fail("unterminated escape") }
                let e = bytes[index]
                index += 1
                switch e {
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
                            throw fail("unpaired surrogate")
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw fail("bad low surrogate") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let u = Unicode.Scalar(scalar) else { throw fail("invalid \\u escape") }
                    out.append(contentsOf: Array(String(Character(u)).utf8))
                    if u.value >= 0x80 { ascii = false }
                default: throw fail("bad escape '\\\(Character(Unicode.Scalar(e)))'")
                }
            case 0x00..<0x20: throw fail("control character in string")
            default:
                if b >= 0x80 { ascii = false }
                out.append(b)
            }
        }
    }
}

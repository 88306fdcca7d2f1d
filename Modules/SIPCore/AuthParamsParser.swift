/// One challenge or credentials element as written: `scheme [token68 | auth-param list]`.
struct AuthSchemeElement: Sendable {
    /// The scheme as written (compare case-insensitively).
    var scheme: String
    /// The auth-params in order, names lower-cased.
    var params: [AuthParam] = []
    /// The token68 form (`Basic dXNlcg==`), when used instead of params.
    var token68: String?
    /// Byte offset of the scheme in the header value.
    var offset: Int

    /// The first parameter named `name` (lower-case).
    func value(_ name: String) -> AuthParam? { params.first { $0.name == name } }
}

/// Parses `WWW-Authenticate`, `Proxy-Authenticate`, `Authorization` and `Proxy-Authorization`
/// header values: RFC 7235 §2.1 / §4.1 (`#challenge`, token68, BWS around `=`) which is a
/// superset of RFC 3261 §25.1 (one challenge per header, LWS, quoted-pair escapes).
///
/// Lenient where interop needs it (unquoted values may hold `/`, `=`, `:`, `@`), strict on
/// structure; bounded; never traps. Folded whitespace (CRLF SP) counts as whitespace.
struct AuthParamsParser {
    /// Maximum header value size in bytes.
    static let maxInputBytes = 8192
    /// Maximum auth-params per challenge.
    static let maxParams = 32
    /// Maximum challenges per header value.
    static let maxElements = 16

    private let bytes: [UInt8]
    private var index = 0

    private init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Parses every element of a header value.
    static func parse(_ value: String) throws(DigestError) -> [AuthSchemeElement] {
        guard value.utf8.count <= maxInputBytes else {
            throw DigestError(.tooLarge, "header value over \(maxInputBytes) bytes")
        }
        var parser = AuthParamsParser(Array(value.utf8))
        return try parser.elements()
    }

    private mutating func elements() throws(DigestError) -> [AuthSchemeElement] {
        var result: [AuthSchemeElement] = []
        while true {
            skipListSeparators()
            if index == bytes.count { break }
            guard result.count < Self.maxElements else {
                throw DigestError(.tooLarge, "more than \(Self.maxElements) challenges", offset: index)
            }
            result.append(try element())
        }
        guard !result.isEmpty else { throw DigestError(.empty) }
        return result
    }

    /// `auth-scheme [ 1*SP ( token68 / #auth-param ) ]`; stops before the next scheme.
    private mutating func element() throws(DigestError) -> AuthSchemeElement {
        let start = index
        let scheme = readToken()
        guard !scheme.isEmpty else { throw DigestError(.syntax, "expected auth-scheme", offset: index) }
        var element = AuthSchemeElement(scheme: scheme, offset: start)
        let afterScheme = index
        skipWhitespace()
        if index == bytes.count || bytes[index] == UInt8(ascii: ",") { return element }
        guard index > afterScheme else { throw DigestError(.syntax, "expected space after scheme", offset: index) }
        if let token68 = tryToken68() {
            element.token68 = token68
            return element
        }
        while true {
            skipWhitespace()
            if index == bytes.count { break }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            // A token not followed by '=' starts the next challenge (RFC 7235 §4.1 #challenge).
            let mark = index
            let name = readToken()
            guard !name.isEmpty else { throw DigestError(.syntax, "expected auth-param", offset: index) }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else {
                guard !element.params.isEmpty else {
                    throw DigestError(.syntax, "expected '=' after \(name)", offset: index)
                }
                index = mark
                break
            }
            index += 1
            skipWhitespace()
            let (value, quoted) = try readValue()
            let param = AuthParam(name: name, value: value, isQuoted: quoted)
            guard element.value(param.name) == nil else {
                throw DigestError(.duplicateParameter, param.name, offset: mark)
            }
            guard element.params.count < Self.maxParams else {
                throw DigestError(.tooLarge, "more than \(Self.maxParams) parameters", offset: mark)
            }
            element.params.append(param)
            skipWhitespace()
            if index < bytes.count, bytes[index] != UInt8(ascii: ",") {
                throw DigestError(.syntax, "expected ',' after \(param.name)", offset: index)
            }
        }
        return element
    }

    /// `token68 = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`, accepted only
    /// when the element ends right after it; otherwise rewinds.
    private mutating func tryToken68() -> String? {
        let start = index
        while index < bytes.count, Self.isToken68(bytes[index]) { index += 1 }
        let body = index
        while index < bytes.count, bytes[index] == UInt8(ascii: "=") { index += 1 }
        let end = index
        skipWhitespace()
        if body > start, index == bytes.count || bytes[index] == UInt8(ascii: ",") {
            return String(decoding: bytes[start..<end], as: UTF8.self)
        }
        index = start
        return nil
    }

    private mutating func readValue() throws(DigestError) -> (String, Bool) {
        guard index < bytes.count else { throw DigestError(.syntax, "missing value", offset: index) }
        if bytes[index] == UInt8(ascii: "\"") { return (try readQuoted(), true) }
        let start = index
        while index < bytes.count, Self.isUnquotedValue(bytes[index]) { index += 1 }
        guard index > start else { throw DigestError(.syntax, "expected token or quoted-string", offset: index) }
        return (String(decoding: bytes[start..<index], as: UTF8.self), false)
    }

    /// `quoted-string = DQUOTE *( qdtext / quoted-pair ) DQUOTE` (RFC 3261 §25.1).
    private mutating func readQuoted() throws(DigestError) -> String {
        let open = index
        index += 1
        var out: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard index + 1 < bytes.count else { break }
                let escaped = bytes[index + 1]
                guard escaped != 0x0A, escaped != 0x0D else {
                    throw DigestError(.invalidCharacter, "CR/LF in quoted-pair", offset: index + 1)
                }
                out.append(escaped)
                index += 2
                continue
            case 0x0D, 0x0A:
                // Folding inside a quoted-string (RFC 3261 §25.1 LWS): CRLF 1*WSP → one SP.
                var probe = index
                while probe < bytes.count, bytes[probe] == 0x0D || bytes[probe] == 0x0A { probe += 1 }
                guard probe < bytes.count, bytes[probe] == 0x20 || bytes[probe] == 0x09 else {
                    throw DigestError(.invalidCharacter, "CR/LF in quoted-string", offset: index)
                }
                while probe < bytes.count, bytes[probe] == 0x20 || bytes[probe] == 0x09 { probe += 1 }
                out.append(0x20)
                index = probe
                continue
            case 0x00...0x08, 0x0B...0x1F, 0x7F:
                throw DigestError(.invalidCharacter, "control character in quoted-string", offset: index)
            default:
                out.append(byte)
                index += 1
                continue
            }
            break
        }
        throw DigestError(.unterminatedQuotedString, offset: open)
    }

    private mutating func readToken() -> String {
        let start = index
        while index < bytes.count, Self.isTokenChar(bytes[index]) { index += 1 }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, Self.isWhitespace(bytes[index]) { index += 1 }
    }

    private mutating func skipListSeparators() {
        while index < bytes.count, Self.isWhitespace(bytes[index]) || bytes[index] == UInt8(ascii: ",") { index += 1 }
    }

    static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }

    /// RFC 7230 `tchar` ∪ RFC 3261 `token` characters.
    static func isTokenChar(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    static func isToken68(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "+"),
            UInt8(ascii: "/"):
            true
        default:
            false
        }
    }

    /// Unquoted values: visible characters except `,` `"` `\` (lenient beyond `token` for
    /// servers that send `nonce=abc/def==` or `uri=sip:x@y` unquoted).
    static func isUnquotedValue(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte != 0x7F && byte != UInt8(ascii: ",") && byte != UInt8(ascii: "\"")
            && byte != UInt8(ascii: "\\")
    }
}

/// A read position over a byte range of a header value, with the RFC 3261 §25.1 separators
/// (`SWS`, `LWS`, `SEMI`, `COMMA`, `EQUAL`, `SLASH`, `LAQUOT`/`RAQUOT`) as allocation-free steps.
///
/// All typed header parsers are written against this cursor: validating a header while indexing
/// a message and building its typed value later run the same grammar code.
struct ByteCursor {
    let p: UnsafeBufferPointer<UInt8>
    var i: Int
    let end: Int
    /// Added to `i` in errors so offsets are relative to the message start.
    let base: Int
    let header: KnownHeader?

    init(_ p: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, base: Int = 0, header: KnownHeader? = nil) {
        self.p = p
        self.i = range.lowerBound
        self.end = range.upperBound
        self.base = base
        self.header = header
    }

    var atEnd: Bool { i >= end }

    @inline(__always) var peek: UInt8? { i < end ? p[i] : nil }

    func error(_ code: SIPParseError.Code, _ detail: String? = nil) -> SIPParseError {
        SIPParseError(code, offset: i - base, headerName: header?.canonicalName, detail: detail)
    }

    /// Skips `LWS` (SP, HTAB, and folded CRLF/LF).
    @inline(__always) mutating func skipLWS() {
        while i < end && ByteClass.isLinearWhitespace(p[i]) { i += 1 }
    }

    /// Consumes `SWS c SWS` if `c` is next after optional whitespace; otherwise leaves `i` alone.
    @inline(__always) mutating func consumeSeparator(_ c: UInt8) -> Bool {
        var j = i
        while j < end && ByteClass.isLinearWhitespace(p[j]) { j += 1 }
        guard j < end, p[j] == c else { return false }
        i = j + 1
        skipLWS()
        return true
    }

    mutating func expectSeparator(_ c: UInt8, _ what: String) throws(SIPParseError) {
        guard consumeSeparator(c) else { throw error(.invalidHeaderValue, "expected \(what)") }
    }

    /// `token` (RFC 3261 §25.1); throws if empty.
    mutating func token(_ what: String = "token") throws(SIPParseError) -> Range<Int> {
        let start = i
        while i < end && ByteClass.isToken(p[i]) { i += 1 }
        guard i > start else { throw error(.invalidHeaderValue, "expected \(what)") }
        return start..<i
    }

    /// `quoted-string` including its quotes (RFC 3261 §25.1; quoted-pair may escape any octet
    /// except CR and LF, RFC 4475 §3.1.1.2).
    mutating func quotedString() throws(SIPParseError) -> Range<Int> {
        let start = i
        guard i < end, p[i] == ByteClass.quote else { throw error(.invalidHeaderValue, "expected '\"'") }
        i += 1
        while i < end {
            let c = p[i]
            if c == ByteClass.quote {
                i += 1
                return start..<i
            }
            if c == ByteClass.backslash {
                guard i + 1 < end, p[i + 1] != ByteClass.cr, p[i + 1] != ByteClass.lf else { break }
                i += 2
                continue
            }
            i += 1
        }
        throw error(.invalidHeaderValue, "unterminated quoted-string")
    }

    /// A `gen-value` (token / host / quoted-string, RFC 3261 §25.1), leniently accepting
    /// unbracketed IPv6 in `received` (RFC 5118 §4.5).
    mutating func genericValue() throws(SIPParseError) -> Range<Int> {
        if peek == ByteClass.quote { return try quotedString() }
        let start = i
        while i < end {
            let c = p[i]
            if ByteClass.isToken(c) || c == ByteClass.colon || c == ByteClass.leftBracket
                || c == ByteClass.rightBracket || c == ByteClass.slash || c == ByteClass.at
                || c == ByteClass.question
            {
                i += 1
            } else {
                break
            }
        }
        guard i > start else { throw error(.invalidHeaderValue, "expected parameter value") }
        return start..<i
    }

    /// `*( SEMI generic-param )`; calls `each(name, value)` for every parameter and stops before
    /// anything that is not `SEMI` (typically `COMMA` or the end).
    mutating func parameters(_ each: (Range<Int>, Range<Int>?) -> Void) throws(SIPParseError) {
        while consumeSeparator(ByteClass.semicolon) {
            let name = try token("parameter name")
            if consumeSeparator(ByteClass.equals) {
                each(name, try genericValue())
            } else {
                each(name, nil)
            }
        }
    }

    /// After one list element: `COMMA` → true (another element follows), end → false. Empty
    /// elements (`a,,b`, a trailing comma as in the RFC 7118 §8.2 F6 example) are skipped.
    mutating func nextListElement() throws(SIPParseError) -> Bool {
        var sawComma = false
        while consumeSeparator(ByteClass.comma) { sawComma = true }
        skipLWS()
        if atEnd { return false }
        guard sawComma else { throw error(.invalidHeaderValue, "unexpected character") }
        return true
    }

    /// An unsigned decimal of at most `max`, allowing leading zeros (RFC 4475 §3.1.1.1).
    mutating func decimal(max: UInt64) throws(SIPParseError) -> UInt64 {
        let start = i
        var value: UInt64 = 0
        while i < end && ByteClass.isDigit(p[i]) {
            value = value &* 10 &+ UInt64(p[i] &- 0x30)
            if value > max { throw error(.numberOutOfRange) }
            i += 1
        }
        guard i > start else { throw error(.invalidHeaderValue, "expected a number") }
        return value
    }
}

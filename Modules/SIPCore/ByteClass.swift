/// Byte classes of the RFC 3261 §25.1 grammar, as small inlinable predicates over octets.
///
/// Everything in SIPCore scans `UInt8`s, never `Character`s: SIP is a byte protocol (RFC 3261 §7.3.1
/// allows UTF-8 in quoted strings and reason phrases only) and grapheme breaking would be both slow
/// and wrong for raw NULs and non-UTF-8 octets (RFC 4475 §3.1.1.2).
enum ByteClass {
    static let cr: UInt8 = 0x0D
    static let lf: UInt8 = 0x0A
    static let sp: UInt8 = 0x20
    static let htab: UInt8 = 0x09
    static let colon: UInt8 = 0x3A
    static let semicolon: UInt8 = 0x3B
    static let comma: UInt8 = 0x2C
    static let equals: UInt8 = 0x3D
    static let quote: UInt8 = 0x22
    static let backslash: UInt8 = 0x5C
    static let lessThan: UInt8 = 0x3C
    static let greaterThan: UInt8 = 0x3E
    static let slash: UInt8 = 0x2F
    static let at: UInt8 = 0x40
    static let question: UInt8 = 0x3F
    static let ampersand: UInt8 = 0x26
    static let percent: UInt8 = 0x25
    static let leftBracket: UInt8 = 0x5B
    static let rightBracket: UInt8 = 0x5D
    static let dot: UInt8 = 0x2E
    static let star: UInt8 = 0x2A

    /// `SP / HTAB` (RFC 3261 §25.1 `WSP`).
    @inline(__always) static func isWhitespace(_ c: UInt8) -> Bool { c == sp || c == htab }

    /// `SP / HTAB / CR / LF`: whitespace inside a possibly folded header value (`LWS`).
    @inline(__always) static func isLinearWhitespace(_ c: UInt8) -> Bool {
        c == sp || c == htab || c == cr || c == lf
    }

    @inline(__always) static func isDigit(_ c: UInt8) -> Bool { c &- 0x30 < 10 }

    @inline(__always) static func isAlpha(_ c: UInt8) -> Bool { (c | 0x20) &- 0x61 < 26 }

    @inline(__always) static func isAlphanumeric(_ c: UInt8) -> Bool { isDigit(c) || isAlpha(c) }

    @inline(__always) static func isHexDigit(_ c: UInt8) -> Bool { isDigit(c) || (c | 0x20) &- 0x61 < 6 }

    /// RFC 3261 §25.1 `token`: alphanum / "-" / "." / "!" / "%" / "*" / "_" / "+" / "`" / "'" / "~".
    @inline(__always) static func isToken(_ c: UInt8) -> Bool {
        if isAlphanumeric(c) { return true }
        switch c {
        case 0x2D, 0x2E, 0x21, 0x25, 0x2A, 0x5F, 0x2B, 0x60, 0x27, 0x7E: return true
        default: return false
        }
    }

    /// RFC 3261 §25.1 `word`: token characters plus `( ) < > : \ " / [ ] ? { }` (used by Call-ID).
    @inline(__always) static func isWord(_ c: UInt8) -> Bool {
        if isToken(c) { return true }
        switch c {
        case 0x28, 0x29, 0x3C, 0x3E, 0x3A, 0x5C, 0x22, 0x2F, 0x5B, 0x5D, 0x3F, 0x7B, 0x7D: return true
        default: return false
        }
    }

    /// RFC 3261 §25.1 `unreserved` / `mark`.
    @inline(__always) static func isUnreserved(_ c: UInt8) -> Bool {
        if isAlphanumeric(c) { return true }
        switch c {
        case 0x2D, 0x5F, 0x2E, 0x21, 0x7E, 0x2A, 0x27, 0x28, 0x29: return true
        default: return false
        }
    }

    /// Octets that may appear literally in a URI (RFC 3986 unreserved + reserved + `%`), used for
    /// URIs of schemes we do not interpret (RFC 3261 §25.1 `absoluteURI`, RFC 4475 §3.3.1).
    @inline(__always) static func isURIChar(_ c: UInt8) -> Bool {
        if isUnreserved(c) { return true }
        switch c {
        case 0x3B, 0x2F, 0x3F, 0x3A, 0x40, 0x26, 0x3D, 0x2B, 0x24, 0x2C, 0x25, 0x5B, 0x5D, 0x23: return true
        default: return false
        }
    }

    @inline(__always) static func lower(_ c: UInt8) -> UInt8 { isAlpha(c) ? c | 0x20 : c }

    @inline(__always) static func hexValue(_ c: UInt8) -> UInt8? {
        if isDigit(c) { return c &- 0x30 }
        let l = c | 0x20
        if l &- 0x61 < 6 { return l &- 0x61 &+ 10 }
        return nil
    }
}

extension UnsafeBufferPointer where Element == UInt8 {
    /// Case-insensitive ASCII comparison of `self[range]` with a lower-case literal.
    @inline(__always)
    func equalsLowercase(_ range: Range<Int>, _ lower: StaticString) -> Bool {
        guard range.count == lower.utf8CodeUnitCount else { return false }
        let l = lower.utf8Start
        var i = 0
        for index in range {
            if ByteClass.lower(self[index]) != l[i] { return false }
            i += 1
        }
        return true
    }

    /// The end of `range` without its trailing `LWS` (folding included).
    @inline(__always)
    func endBeforeTrailingLWS(_ range: Range<Int>) -> Int {
        var end = range.upperBound
        while end > range.lowerBound && ByteClass.isLinearWhitespace(self[end - 1]) { end -= 1 }
        return end
    }

    /// Decodes `self[range]` as UTF-8, repairing invalid sequences (RFC 3261 allows raw octets in
    /// a few places; callers that need the exact octets use the raw byte accessors instead).
    func string(_ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: self[range]), as: UTF8.self)
    }

    /// The text of a folded header-value range with every `LWS` run (CR, LF, SP, HTAB) inside it
    /// collapsed to one SP (RFC 3261 §7.3.1: folding is equivalent to a single SP).
    func unfoldedString(_ range: Range<Int>) -> String {
        var needsWork = false
        for i in range where self[i] == ByteClass.cr || self[i] == ByteClass.lf {
            needsWork = true
            break
        }
        if !needsWork { return string(range) }
        var out = [UInt8]()
        out.reserveCapacity(range.count)
        var i = range.lowerBound
        while i < range.upperBound {
            let c = self[i]
            if ByteClass.isLinearWhitespace(c) {
                var j = i
                var folded = false
                while j < range.upperBound && ByteClass.isLinearWhitespace(self[j]) {
                    if self[j] == ByteClass.lf { folded = true }
                    j += 1
                }
                if folded { out.append(ByteClass.sp) } else { out.append(contentsOf: self[i..<j]) }
                i = j
            } else {
                out.append(c)
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

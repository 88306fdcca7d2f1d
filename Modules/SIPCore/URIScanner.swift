/// The RFC 3261 §19.1.1 / §25.1 SIP-URI grammar (with RFC 5118 IPv6 references and RFC 3966 tel
/// URIs), scanned into byte ranges without allocation.
///
/// ``SIPURI`` is built from these ranges; the message parser also runs the scanner over the
/// Request-URI to reject malformed ones (RFC 4475 §3.1.2.x, RFC 5118 §4.2).
struct URIRanges {
    var scheme: SIPURI.Scheme.Kind
    var schemeRange: Range<Int>
    var user: Range<Int>?
    var password: Range<Int>?
    var host: Range<Int>?
    var hostKind: SIPHost.Kind = .name
    var port: UInt16?
    /// `;name=value` pairs, from the first `;` (empty if none).
    var parameters: Range<Int>
    /// The part after `?`, if any.
    var headers: Range<Int>?
    /// For schemes other than sip/sips/tel: everything after `scheme:`.
    var opaque: Range<Int>?
}

enum URIScanner {
    private static func isUserChar(_ c: UInt8) -> Bool {
        if ByteClass.isUnreserved(c) { return true }
        switch c {
        case 0x25, 0x26, 0x3D, 0x2B, 0x24, 0x2C, 0x3B, 0x3F, 0x2F: return true  // % & = + $ , ; ? /
        default: return false
        }
    }

    private static func isPasswordChar(_ c: UInt8) -> Bool {
        if ByteClass.isUnreserved(c) { return true }
        switch c {
        case 0x25, 0x26, 0x3D, 0x2B, 0x24, 0x2C: return true  // % & = + $ ,
        default: return false
        }
    }

    /// `paramchar` (param-unreserved / unreserved / escaped) and `hnv-unreserved`.
    static func isParamChar(_ c: UInt8) -> Bool {
        if ByteClass.isUnreserved(c) { return true }
        switch c {
        case 0x25, 0x5B, 0x5D, 0x2F, 0x3A, 0x26, 0x2B, 0x24, 0x3F: return true  // % [ ] / : & + $ ?
        default: return false
        }
    }

    static func scan(
        _ p: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, base: Int = 0,
        code: SIPParseError.Code = .invalidURI
    ) throws(SIPParseError) -> URIRanges {
        func fail(_ at: Int, _ detail: String) -> SIPParseError {
            SIPParseError(code, offset: at - base, detail: detail)
        }
        var i = range.lowerBound
        let end = range.upperBound
        // scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":"
        guard i < end, ByteClass.isAlpha(p[i]) else { throw fail(i, "URI must start with a scheme") }
        while i < end {
            let c = p[i]
            if ByteClass.isAlphanumeric(c) || c == 0x2B || c == 0x2D || c == 0x2E { i += 1 } else { break }
        }
        guard i < end, p[i] == ByteClass.colon else { throw fail(i, "expected ':' after scheme") }
        let schemeRange = range.lowerBound..<i
        i += 1
        let kind: SIPURI.Scheme.Kind
        if p.equalsLowercase(schemeRange, "sip") {
            kind = .sip
        } else if p.equalsLowercase(schemeRange, "sips") {
            kind = .sips
        } else if p.equalsLowercase(schemeRange, "tel") {
            kind = .tel
        } else {
            // absoluteURI: hier-part / opaque-part, opaque to us (RFC 4475 §3.3.1, §3.3.2).
            guard i < end else { throw fail(i, "empty URI after scheme") }
            for j in i..<end where !ByteClass.isURIChar(p[j]) { throw fail(j, "invalid URI character") }
            return URIRanges(scheme: .other, schemeRange: schemeRange, parameters: end..<end, opaque: i..<end)
        }
        var out = URIRanges(scheme: kind, schemeRange: schemeRange, parameters: end..<end)
        if kind == .tel {
            // RFC 3966: telephone-subscriber; we keep the number and split parameters on ';'.
            let start = i
            while i < end && p[i] != ByteClass.semicolon {
                guard ByteClass.isURIChar(p[i]), p[i] != ByteClass.question else {
                    throw fail(i, "invalid tel URI character")
                }
                i += 1
            }
            guard i > start else { throw fail(i, "empty tel number") }
            out.user = start..<i
            try scanParameters(p, &i, end, base: base, code: code)
            out.parameters = (out.user!.upperBound)..<i
            guard i == end else { throw fail(i, "invalid tel URI character") }
            return out
        }
        // userinfo: present when an '@' occurs (user and password cannot contain a raw '@').
        var at: Int? = nil
        for j in i..<end where p[j] == ByteClass.at {
            at = j
            break
        }
        if let at {
            var j = i
            while j < at && p[j] != ByteClass.colon {
                guard isUserChar(p[j]) else { throw fail(j, "invalid character in URI user") }
                j += 1
            }
            guard j > i else { throw fail(j, "empty URI user") }
            out.user = i..<j
            if j < at {
                let passwordStart = j + 1
                for k in passwordStart..<at where !isPasswordChar(p[k]) {
                    throw fail(k, "invalid character in URI password")
                }
                out.password = passwordStart..<at
            }
            try checkEscapes(p, i..<at, base: base, code: code)
            i = at + 1
        }
        // host
        let hostStart = i
        if i < end && p[i] == ByteClass.leftBracket {
            i += 1
            while i < end && p[i] != ByteClass.rightBracket {
                let c = p[i]
                guard ByteClass.isHexDigit(c) || c == ByteClass.colon || c == ByteClass.dot else {
                    throw fail(i, "invalid IPv6 reference")
                }
                i += 1
            }
            guard i < end, i - hostStart >= 3 else { throw fail(i, "unterminated IPv6 reference") }
            i += 1
            out.hostKind = .ipv6
        } else {
            var allDigitsAndDots = true
            while i < end {
                let c = p[i]
                if ByteClass.isAlphanumeric(c) || c == 0x2D || c == ByteClass.dot || c == 0x5F {
                    if !(ByteClass.isDigit(c) || c == ByteClass.dot) { allDigitsAndDots = false }
                    i += 1
                } else {
                    break
                }
            }
            guard i > hostStart else { throw fail(i, "empty URI host") }
            out.hostKind = allDigitsAndDots ? .ipv4 : .name
        }
        out.host = hostStart..<i
        if i < end && p[i] == ByteClass.colon {
            i += 1
            let portStart = i
            var port = 0
            while i < end && ByteClass.isDigit(p[i]) {
                port = port * 10 + Int(p[i] - 0x30)
                guard port <= 65535 else { throw fail(i, "port out of range") }
                i += 1
            }
            guard i > portStart else { throw fail(i, "invalid port") }
            out.port = UInt16(port)
        }
        let parametersStart = i
        try scanParameters(p, &i, end, base: base, code: code)
        out.parameters = parametersStart..<i
        if i < end && p[i] == ByteClass.question {
            i += 1
            let headersStart = i
            while i < end && isParamChar(p[i]) || (i < end && p[i] == ByteClass.equals) { i += 1 }
            out.headers = headersStart..<i
            try checkEscapes(p, headersStart..<i, base: base, code: code)
        }
        guard i == end else { throw fail(i, "unexpected character in URI") }
        return out
    }

    /// `*( ";" pname [ "=" pvalue ] )`.
    private static func scanParameters(
        _ p: UnsafeBufferPointer<UInt8>, _ i: inout Int, _ end: Int,
        base: Int, code: SIPParseError.Code
    ) throws(SIPParseError) {
        while i < end && p[i] == ByteClass.semicolon {
            i += 1
            let nameStart = i
            while i < end && isParamChar(p[i]) && p[i] != ByteClass.question { i += 1 }
            guard i > nameStart else { throw SIPParseError(code, offset: i - base, detail: "empty URI parameter") }
            if i < end && p[i] == ByteClass.equals {
                i += 1
                let valueStart = i
                while i < end && isParamChar(p[i]) && p[i] != ByteClass.question { i += 1 }
                guard i > valueStart else {
                    throw SIPParseError(code, offset: i - base, detail: "empty URI parameter value")
                }
            }
            try checkEscapes(p, nameStart..<i, base: base, code: code)
        }
    }

    /// Every `%` must start `%HH` (RFC 3261 §25.1 `escaped`).
    private static func checkEscapes(
        _ p: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, base: Int,
        code: SIPParseError.Code
    ) throws(SIPParseError) {
        var j = range.lowerBound
        while j < range.upperBound {
            if p[j] == ByteClass.percent {
                guard j + 2 < range.upperBound,
                    ByteClass.isHexDigit(p[j + 1]), ByteClass.isHexDigit(p[j + 2])
                else { throw SIPParseError(code, offset: j - base, detail: "bad %-escape") }
                j += 3
            } else {
                j += 1
            }
        }
    }

    /// Decodes `%HH` escapes in `p[range]` (RFC 3261 §19.1.4: escaped and unescaped forms are
    /// equivalent).
    static func percentDecoded(_ p: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        var hasEscape = false
        for j in range where p[j] == ByteClass.percent {
            hasEscape = true
            break
        }
        if !hasEscape { return p.string(range) }
        var out = [UInt8]()
        out.reserveCapacity(range.count)
        var j = range.lowerBound
        while j < range.upperBound {
            if p[j] == ByteClass.percent, j + 2 < range.upperBound,
                let h = ByteClass.hexValue(p[j + 1]), let l = ByteClass.hexValue(p[j + 2])
            {
                out.append(h << 4 | l)
                j += 3
            } else {
                out.append(p[j])
                j += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

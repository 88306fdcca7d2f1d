/// A `name-addr` or `addr-spec` with header parameters: the value of From, To, Contact, Route,
/// Record-Route, Refer-To and similar headers (RFC 3261 §20.10, §20.20, §20.39, §25.1).
///
/// For an `addr-spec` written without `<>`, parameters after the URI are header parameters,
/// never URI parameters (RFC 3261 §20.10; RFC 4475 §3.1.1.x cparam01/cparam02).
public struct SIPNameAddress: Sendable, Hashable, CustomStringConvertible {
    /// The display name, unquoted (quoted-pairs resolved); `nil` when absent.
    public var displayName: String?
    public var uri: SIPURI
    /// Header parameters (`tag`, `expires`, `q`, `+sip.instance`, …), as written.
    public var parameters: SIPParameters

    public init(displayName: String? = nil, uri: SIPURI, parameters: SIPParameters = []) {
        self.displayName = displayName
        self.uri = uri
        self.parameters = parameters
    }

    /// The dialog tag (RFC 3261 §19.3).
    public var tag: String? {
        get { parameters["tag"] }
        set { if let newValue { parameters.set("tag", newValue) } else { parameters.remove("tag") } }
    }

    /// Canonical form: `"Name" <uri>;params` (always with `<>`, RFC 3261 §20.10).
    public var description: String {
        var out = ""
        if let displayName {
            out += "\""
            for c in displayName.unicodeScalars {
                if c == "\"" || c == "\\" { out += "\\" }
                out.unicodeScalars.append(c)
            }
            out += "\" "
        }
        return out + "<" + uri.description + ">" + parameters.serialized
    }
}

/// Byte ranges of one name-addr / addr-spec with its parameters.
struct NameAddressRanges {
    var displayName: Range<Int>?
    var displayNameQuoted: Bool
    var uri: Range<Int>
    var parameters: Range<Int>
}

extension SIPNameAddress {
    /// Scans `( name-addr / addr-spec ) *( SEMI generic-param )` at the cursor.
    static func scan(_ c: inout ByteCursor) throws(SIPParseError) -> NameAddressRanges {
        c.skipLWS()
        var display: Range<Int>? = nil
        var quoted = false
        let uri: Range<Int>
        if c.peek == ByteClass.quote {
            display = try c.quotedString()
            quoted = true
            c.skipLWS()
            uri = try bracketed(&c)
        } else if c.peek == ByteClass.lessThan {
            uri = try bracketed(&c)
        } else {
            let start = c.i
            var lastWordEnd = start
            var first = true
            while true {
                let wordStart = c.i
                while let b = c.peek, ByteClass.isToken(b) || b >= 0x80 { c.i += 1 }  // liberal: raw UTF-8
                if c.i == wordStart { break }
                if first && c.peek == ByteClass.colon {
                    // addr-spec: the URI runs to the first ';', ',' or whitespace.
                    c.i = start
                    while let b = c.peek, b != ByteClass.semicolon, b != ByteClass.comma,
                        !ByteClass.isLinearWhitespace(b)
                    { c.i += 1 }
                    let range = start..<c.i
                    _ = try URIScanner.scan(c.p, range, base: c.base)
                    let parametersStart = c.i
                    try c.parameters { _, _ in }
                    return NameAddressRanges(
                        displayName: nil, displayNameQuoted: false, uri: range,
                        parameters: parametersStart..<c.i)
                }
                first = false
                lastWordEnd = c.i
                c.skipLWS()
            }
            guard c.peek == ByteClass.lessThan, lastWordEnd > start else {
                throw c.error(.invalidHeaderValue, "expected name-addr or addr-spec")
            }
            display = start..<lastWordEnd
            uri = try bracketed(&c)
        }
        let parametersStart = c.i
        try c.parameters { _, _ in }
        return NameAddressRanges(
            displayName: display, displayNameQuoted: quoted, uri: uri,
            parameters: parametersStart..<c.i)
    }

    /// `LAQUOT addr-spec RAQUOT`; returns the URI range after validating it.
    private static func bracketed(_ c: inout ByteCursor) throws(SIPParseError) -> Range<Int> {
        guard c.peek == ByteClass.lessThan else { throw c.error(.invalidHeaderValue, "expected '<'") }
        c.i += 1
        let start = c.i
        while let b = c.peek, b != ByteClass.greaterThan { c.i += 1 }
        guard c.peek == ByteClass.greaterThan else { throw c.error(.invalidHeaderValue, "expected '>'") }
        let range = start..<c.i
        c.i += 1
        _ = try URIScanner.scan(c.p, range, base: c.base)
        return range
    }

    /// Builds the value from scanned ranges.
    init(_ p: UnsafeBufferPointer<UInt8>, _ r: NameAddressRanges, header: KnownHeader?) throws(SIPParseError) {
        if let display = r.displayName {
            let text = p.unfoldedString(display)
            self.displayName = r.displayNameQuoted ? SIPParameters.unquoted(text) : text
        } else {
            self.displayName = nil
        }
        self.uri = try SIPURI(p, r.uri)
        var pc = ByteCursor(p, r.parameters, header: header)
        self.parameters = try SIPParameters(p, cursor: &pc)
    }

    /// Validates a single-valued header (From, To); returns the range of its parameters, where
    /// `tag` is looked up only when asked for.
    @discardableResult
    static func validateSingle(
        _ p: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, base: Int,
        header: KnownHeader
    ) throws(SIPParseError) -> Range<Int> {
        var c = ByteCursor(p, range, base: base, header: header)
        let parameters = try scan(&c).parameters
        c.skipLWS()
        guard c.atEnd else { throw c.error(.invalidHeaderValue, "unexpected character after address") }
        return parameters
    }

    /// Parses a comma-separated list of addresses (Route, Record-Route, Contact without `*`).
    static func parseList(
        _ p: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, header: KnownHeader?,
        into out: inout [SIPNameAddress]
    ) throws(SIPParseError) {
        var c = ByteCursor(p, range, header: header)
        repeat {
            let r = try scan(&c)
            out.append(try SIPNameAddress(p, r, header: header))
        } while try c.nextListElement()
    }
}

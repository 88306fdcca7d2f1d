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

/// Where a name-addr scan puts what its URI scan found. Building a typed address keeps it
/// (``SIPURI`` is then made from it, no second scan); the parse's validation drops it, so the
/// lazy parse does not carry a URI's ranges it never reads.
protocol URIPartsSink {
    mutating func take(_ parts: URIRanges)
}

/// Drops the URI's ranges (validation).
struct DroppedURIParts: URIPartsSink {
    @inline(__always) mutating func take(_ parts: URIRanges) {}
}

/// Keeps the URI's ranges (building the value).
struct KeptURIParts: URIPartsSink {
    var parts: URIRanges?
    @inline(__always) mutating func take(_ parts: URIRanges) { self.parts = parts }
}

extension SIPNameAddress {
    /// Scans `( name-addr / addr-spec ) *( SEMI generic-param )` at the cursor (validation: the
    /// URI's ranges are dropped).
    static func scan(_ c: inout ByteCursor) throws(SIPParseError) -> NameAddressRanges {
        var dropped = DroppedURIParts()
        return try scan(&c, uri: &dropped)
    }

    /// Scans `( name-addr / addr-spec ) *( SEMI generic-param )` at the cursor; what the URI scan
    /// found goes to `sink`.
    static func scan<Sink: URIPartsSink>(_ c: inout ByteCursor, uri sink: inout Sink) throws(SIPParseError)
        -> NameAddressRanges
    {
        c.skipLWS()
        var display: Range<Int>? = nil
        var quoted = false
        let uri: Range<Int>
        if c.peek == ByteClass.quote {
            display = try c.quotedString()
            quoted = true
            c.skipLWS()
            uri = try bracketed(&c, &sink)
        } else if c.peek == ByteClass.lessThan {
            uri = try bracketed(&c, &sink)
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
                    sink.take(try URIScanner.scan(c.p, range, base: c.base))
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
            uri = try bracketed(&c, &sink)
        }
        let parametersStart = c.i
        try c.parameters { _, _ in }
        return NameAddressRanges(
            displayName: display, displayNameQuoted: quoted, uri: uri,
            parameters: parametersStart..<c.i)
    }

    /// `LAQUOT addr-spec RAQUOT`; returns the URI range, what scanning it found goes to `sink`.
    private static func bracketed<Sink: URIPartsSink>(_ c: inout ByteCursor, _ sink: inout Sink)
        throws(SIPParseError) -> Range<Int>
    {
        guard c.peek == ByteClass.lessThan else { throw c.error(.invalidHeaderValue, "expected '<'") }
        c.i += 1
        let start = c.i
        while let b = c.peek, b != ByteClass.greaterThan { c.i += 1 }
        guard c.peek == ByteClass.greaterThan else { throw c.error(.invalidHeaderValue, "expected '>'") }
        let range = start..<c.i
        c.i += 1
        sink.take(try URIScanner.scan(c.p, range, base: c.base))
        return range
    }

    /// Scans one name-addr / addr-spec at the cursor and builds it, its URI from the ranges the
    /// scan found (scanned once).
    static func parse(_ p: UnsafeBufferPointer<UInt8>, _ c: inout ByteCursor, header: KnownHeader?)
        throws(SIPParseError) -> SIPNameAddress
    {
        var kept = KeptURIParts()
        let r = try scan(&c, uri: &kept)
        // Every path of a successful scan scans the URI; no parts would be a scanner bug, and a
        // parse error is the safe answer to it.
        guard let parts = kept.parts else { throw c.error(.invalidHeaderValue, "expected a URI") }
        return try SIPNameAddress(p, r, uri: parts, header: header)
    }

    /// Builds the value from scanned ranges.
    init(_ p: UnsafeBufferPointer<UInt8>, _ r: NameAddressRanges, uri: URIRanges, header: KnownHeader?)
        throws(SIPParseError)
    {
        if let display = r.displayName {
            let text = p.unfoldedString(display)
            self.displayName = r.displayNameQuoted ? SIPParameters.unquoted(text) : text
        } else {
            self.displayName = nil
        }
        self.uri = SIPURI(p, parts: uri)
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

    /// Parses a comma-separated list of addresses (Route, Record-Route, Contact without `*`),
    /// appending each as `wrap` makes it (Contact appends `SIPContact.address` values straight
    /// into its list, with no array of addresses in between).
    @inline(__always)
    static func parseList<Element>(
        _ p: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, header: KnownHeader?,
        into out: inout [Element], _ wrap: (SIPNameAddress) -> Element
    ) throws(SIPParseError) {
        var c = ByteCursor(p, range, header: header)
        repeat {
            out.append(wrap(try parse(p, &c, header: header)))
        } while try c.nextListElement()
    }
}

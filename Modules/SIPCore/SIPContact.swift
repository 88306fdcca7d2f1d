/// One value of a Contact header (RFC 3261 §20.10, §10.2.1; RFC 5626 §4.1 instance/reg-id;
/// RFC 8599 §4 push parameters).
public enum SIPContact: Sendable, Hashable, CustomStringConvertible {
    /// `Contact: *`, only valid in a REGISTER with `Expires: 0` (RFC 3261 §10.2.2).
    case wildcard
    case address(SIPNameAddress)

    public var address: SIPNameAddress? {
        if case .address(let a) = self { return a }
        return nil
    }

    private func parameter(_ name: String) -> String? { address?.parameters[name] }

    /// `expires` (RFC 3261 §20.10), seconds.
    public var expires: UInt32? { parameter("expires").flatMap { UInt32($0) } }
    /// `q` (RFC 3261 §20.10) as written, e.g. `0.7`.
    public var q: String? { parameter("q") }
    /// `+sip.instance` (RFC 5626 §4.1), unquoted, e.g. `<urn:uuid:…>`.
    public var instance: String? { parameter("+sip.instance") }
    /// `reg-id` (RFC 5626 §4.1).
    public var regID: UInt32? { parameter("reg-id").flatMap { UInt32($0) } }
    /// `pn-provider` (RFC 8599 §4.1.1): a Contact URI parameter (a header parameter is accepted too).
    public var pushProvider: String? { address?.uri.parameters["pn-provider"] ?? parameter("pn-provider") }
    /// `pn-prid` (RFC 8599 §4.1.2).
    public var pushPRID: String? { address?.uri.parameters["pn-prid"] ?? parameter("pn-prid") }
    /// `pn-param` (RFC 8599 §4.1.3).
    public var pushParam: String? { address?.uri.parameters["pn-param"] ?? parameter("pn-param") }

    public var description: String {
        switch self {
        case .wildcard: "*"
        case .address(let a): a.description
        }
    }

    /// Validates a Contact header value: `STAR / contact-param *(COMMA contact-param)`.
    static func validate(_ p: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, base: Int) throws(SIPParseError) {
        var c = ByteCursor(p, range, base: base, header: .contact)
        if isWildcard(p, range) { return }
        repeat { _ = try SIPNameAddress.scan(&c) } while try c.nextListElement()
    }

    static func isWildcard(_ p: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        var c = ByteCursor(p, range)
        c.skipLWS()
        guard c.peek == ByteClass.star else { return false }
        c.i += 1
        c.skipLWS()
        return c.atEnd
    }
}

/// A header field name, compared case-insensitively with compact forms expanded
/// (RFC 3261 §7.3.1, §7.3.3, §20; IANA "Header Fields" registry compact forms).
///
/// `SIPHeaderName("v") == .via`, `SIPHeaderName("CALL-ID") == .callID`. Names outside the
/// built-in table compare by their lower-cased spelling.
public struct SIPHeaderName: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// Index into ``KnownHeader/table``, or `nil` for an extension header.
    package let known: KnownHeader?
    /// Lower-cased spelling, only for extension headers (empty for known ones).
    private let lowercased: String
    /// The spelling given, only for extension headers (written when the header is added).
    private let spelling: String

    package init(known: KnownHeader) {
        self.known = known
        self.lowercased = ""
        self.spelling = ""
    }

    /// A name as written, in any case or in compact form.
    public init(_ name: String) {
        var copy = name
        let found: KnownHeader? = copy.withUTF8 { KnownHeader.lookup($0, 0..<$0.count) }
        if let found {
            self.init(known: found)
        } else {
            self.init(extension: name)
        }
    }

    private init(extension name: String) {
        self.known = nil
        self.lowercased = name.lowercasedASCII
        self.spelling = name
    }

    public static func == (lhs: SIPHeaderName, rhs: SIPHeaderName) -> Bool {
        lhs.known == rhs.known && lhs.lowercased == rhs.lowercased
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(known)
        hasher.combine(lowercased)
    }

    /// Whether `bytes[range]` (a raw name, already classified as `known`) is this name.
    package func matches(_ slotKnown: KnownHeader?, _ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        if let known { return slotKnown == known }
        guard slotKnown == nil, range.count == lowercased.utf8.count else { return false }
        var j = range.lowerBound
        for c in lowercased.utf8 {
            if ByteClass.lower(bytes[j]) != c { return false }
            j += 1
        }
        return true
    }

    public init(stringLiteral value: String) { self.init(value) }

    /// The canonical long form (`Call-ID`, `Via`), or the extension name as first spelled.
    public var canonicalName: String { known?.canonicalName ?? spelling }

    /// The compact form (RFC 3261 §7.3.3), if the name has one.
    public var compactForm: Character? {
        guard let known, let c = known.compact else { return nil }
        return Character(Unicode.Scalar(c))
    }

    public var description: String { canonicalName }

    public static let accept = SIPHeaderName(known: .accept)
    public static let acceptContact = SIPHeaderName(known: .acceptContact)
    public static let alertInfo = SIPHeaderName(known: .alertInfo)
    public static let allow = SIPHeaderName(known: .allow)
    public static let allowEvents = SIPHeaderName(known: .allowEvents)
    public static let authenticationInfo = SIPHeaderName(known: .authenticationInfo)
    public static let authorization = SIPHeaderName(known: .authorization)
    public static let callID = SIPHeaderName(known: .callID)
    public static let contact = SIPHeaderName(known: .contact)
    public static let contentDisposition = SIPHeaderName(known: .contentDisposition)
    public static let contentEncoding = SIPHeaderName(known: .contentEncoding)
    public static let contentLength = SIPHeaderName(known: .contentLength)
    public static let contentType = SIPHeaderName(known: .contentType)
    public static let cseq = SIPHeaderName(known: .cseq)
    public static let date = SIPHeaderName(known: .date)
    public static let event = SIPHeaderName(known: .event)
    public static let expires = SIPHeaderName(known: .expires)
    public static let from = SIPHeaderName(known: .from)
    public static let identity = SIPHeaderName(known: .identity)
    public static let maxForwards = SIPHeaderName(known: .maxForwards)
    public static let minExpires = SIPHeaderName(known: .minExpires)
    public static let path = SIPHeaderName(known: .path)
    public static let proxyAuthenticate = SIPHeaderName(known: .proxyAuthenticate)
    public static let proxyAuthorization = SIPHeaderName(known: .proxyAuthorization)
    public static let proxyRequire = SIPHeaderName(known: .proxyRequire)
    public static let recordRoute = SIPHeaderName(known: .recordRoute)
    public static let referTo = SIPHeaderName(known: .referTo)
    public static let referredBy = SIPHeaderName(known: .referredBy)
    public static let rejectContact = SIPHeaderName(known: .rejectContact)
    public static let require = SIPHeaderName(known: .require)
    public static let retryAfter = SIPHeaderName(known: .retryAfter)
    public static let route = SIPHeaderName(known: .route)
    public static let server = SIPHeaderName(known: .server)
    public static let serviceRoute = SIPHeaderName(known: .serviceRoute)
    public static let sessionExpires = SIPHeaderName(known: .sessionExpires)
    public static let subject = SIPHeaderName(known: .subject)
    public static let supported = SIPHeaderName(known: .supported)
    public static let to = SIPHeaderName(known: .to)
    public static let unsupported = SIPHeaderName(known: .unsupported)
    public static let userAgent = SIPHeaderName(known: .userAgent)
    public static let via = SIPHeaderName(known: .via)
    public static let warning = SIPHeaderName(known: .warning)
    public static let wwwAuthenticate = SIPHeaderName(known: .wwwAuthenticate)
}

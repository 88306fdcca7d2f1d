/// A SIP, SIPS or tel URI, or any other absolute URI kept opaque (RFC 3261 §19.1, §25.1;
/// RFC 3966; RFC 5118 IPv6 references).
///
/// `user` and `password` are %-decoded (RFC 3261 §19.1.4); parameters and URI headers are kept
/// as written. ``description`` produces the canonical text form, re-escaping the user part.
public struct SIPURI: Sendable, Hashable, CustomStringConvertible {
    /// The URI scheme.
    public struct Scheme: Sendable, Hashable, CustomStringConvertible {
        enum Kind: Sendable, Hashable { case sip, sips, tel, other }
        let kind: Kind
        /// The scheme in lower case.
        public let name: String

        public static let sip = Scheme(kind: .sip, name: "sip")
        public static let sips = Scheme(kind: .sips, name: "sips")
        public static let tel = Scheme(kind: .tel, name: "tel")

        public init(_ name: String) {
            let lower = String(decoding: name.utf8.map(ByteClass.lower), as: UTF8.self)
            switch lower {
            case "sip": self = .sip
            case "sips": self = .sips
            case "tel": self = .tel
            default: self.init(kind: .other, name: lower)
            }
        }

        init(kind: Kind, name: String) {
            self.kind = kind
            self.name = name
        }

        public var description: String { name }
    }

    public var scheme: Scheme
    /// The user part (sip/sips) or the telephone number (tel), %-decoded.
    public var user: String?
    /// The password part of `userinfo`, %-decoded (RFC 3261 §19.1.1: NOT RECOMMENDED).
    public var password: String?
    /// The host (sip/sips only).
    public var host: SIPHost?
    public var port: UInt16?
    /// `;name=value` URI parameters (transport, lr, maddr, ob, …), as written.
    public var parameters: SIPParameters
    /// `?name=value&…` URI headers, as written (still %-escaped).
    public var headers: SIPParameters
    /// For schemes other than sip/sips/tel: everything after `scheme:`.
    public var opaque: String?

    /// A `sip:` / `sips:` URI.
    public init(
        scheme: Scheme = .sip, user: String? = nil, host: String, port: UInt16? = nil,
        parameters: SIPParameters = [], headers: SIPParameters = []
    ) {
        self.scheme = scheme
        self.user = user
        self.host = SIPHost(host)
        self.port = port
        self.parameters = parameters
        self.headers = headers
    }

    /// Parses a URI (RFC 3261 §25.1 `SIP-URI` / `SIPS-URI` / `absoluteURI`, RFC 3966 `telephone-uri`).
    public init(parsing text: String) throws(SIPParseError) {
        var copy = text
        let result: Result<SIPURI, SIPParseError> = copy.withUTF8 { p in
            do throws(SIPParseError) {
                return .success(try SIPURI(p, 0..<p.count))
            } catch {
                return .failure(error)
            }
        }
        self = try result.get()
    }

    init(_ p: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, base: Int = 0) throws(SIPParseError) {
        self.init(p, parts: try URIScanner.scan(p, range, base: base))
    }

    /// Builds the value from the ranges ``URIScanner`` found. The name-addr scan of From, To and
    /// Contact carries them here, so building one of those URIs scans it once, not twice.
    init(_ p: UnsafeBufferPointer<UInt8>, parts r: URIRanges) {
        self.scheme =
            r.scheme == .other
            ? Scheme(kind: .other, name: p.string(r.schemeRange).lowercasedASCII)
            : (r.scheme == .sip ? .sip : r.scheme == .sips ? .sips : .tel)
        self.user = r.user.map { URIScanner.percentDecoded(p, $0) }
        self.password = r.password.map { URIScanner.percentDecoded(p, $0) }
        self.host = r.host.map { SIPHost(p, $0, kind: r.hostKind) }
        self.port = r.port
        self.parameters = SIPParameters(uriRegion: p, r.parameters, separator: ByteClass.semicolon)
        self.headers = r.headers.map { SIPParameters(uriRegion: p, $0, separator: ByteClass.ampersand) } ?? []
        self.opaque = r.opaque.map { p.string($0) }
    }

    /// The `transport` URI parameter (RFC 3261 §19.1.1), if present.
    public var transport: SIPTransportProtocol? { parameters["transport"].map(SIPTransportProtocol.init) }

    /// Whether `lr` is present (RFC 3261 §16.12.1.1 loose routing).
    public var isLooseRouter: Bool { parameters.contains("lr") }

    /// The canonical text form.
    public var description: String {
        var out = scheme.name + ":"
        if let opaque { return out + opaque }
        if let user {
            out += SIPURI.escape(user, allowed: SIPURI.isUserUnescaped)
            if let password { out += ":" + SIPURI.escape(password, allowed: SIPURI.isPasswordUnescaped) }
            if scheme != .tel { out += "@" }
        }
        if let host { out += host.description }
        if let port { out += ":" + String(port) }
        out += parameters.serialized
        if !headers.isEmpty {
            out +=
                "?"
                + headers.elements.map { h in h.value.map { h.name + "=" + $0 } ?? h.name }
                .joined(separator: "&")
        }
        return out
    }

    static func isUserUnescaped(_ c: UInt8) -> Bool {
        if ByteClass.isUnreserved(c) { return true }
        switch c {
        case 0x26, 0x3D, 0x2B, 0x24, 0x2C, 0x3B, 0x3F, 0x2F: return true
        default: return false
        }
    }

    static func isPasswordUnescaped(_ c: UInt8) -> Bool {
        if ByteClass.isUnreserved(c) { return true }
        switch c {
        case 0x26, 0x3D, 0x2B, 0x24, 0x2C: return true
        default: return false
        }
    }

    /// %HH-escapes every octet not in `allowed` (RFC 3261 §19.1.2).
    static func escape(_ text: String, allowed: (UInt8) -> Bool) -> String {
        if text.utf8.allSatisfy(allowed) { return text }
        let hex = Array("0123456789ABCDEF".utf8)
        var out = [UInt8]()
        for c in text.utf8 {
            if allowed(c) {
                out.append(c)
            } else {
                out.append(ByteClass.percent)
                out.append(hex[Int(c >> 4)])
                out.append(hex[Int(c & 15)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension String {
    var lowercasedASCII: String { String(decoding: utf8.map(ByteClass.lower), as: UTF8.self) }
}

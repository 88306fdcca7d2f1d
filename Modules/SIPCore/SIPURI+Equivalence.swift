#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// URI equivalence (RFC 3261 §19.1.4). `==` on ``SIPURI`` is structural (parameters in order, as
/// written); protocol decisions — "is this Contact the one I registered?" (§10.2.4), "is this
/// Route me?" — use ``isEquivalent(to:)``.
extension SIPURI {
    /// The URI parameters that, when present in either URI, must be present and equal in both
    /// (§19.1.4: "A URI omitting any component with a default value will not match a URI
    /// explicitly containing that component with its default value").
    public static let significantParameters: Set<String> = ["transport", "user", "ttl", "method", "maddr"]

    /// RFC 3261 §19.1.4 equivalence:
    /// - a SIP and a SIPS URI are never equivalent;
    /// - user and password compare case-sensitively, after %HH decoding (`%61lice` = `alice`);
    /// - the host compares case-insensitively (an IPv6 reference by address, so `[::1]` =
    ///   `[0:0::1]`); a name never equals the address it resolves to;
    /// - the port compares exactly: absent ≠ explicit 5060 (the default can resolve differently);
    /// - `transport`, `user`, `ttl`, `method` and `maddr` must match if present in either URI;
    ///   every other parameter is compared only when present in both; names and values are
    ///   case-insensitive (values %HH-decoded), order is irrelevant;
    /// - URI headers are never ignored: both must carry the same set (names case-insensitive,
    ///   values %HH-decoded and case-sensitive), in any order.
    ///
    /// For `tel` URIs (RFC 3966 §4) the number is compared without visual separators
    /// (`-`, `.`, `(`, `)`) and the parameters as a set; other schemes compare their text.
    public func isEquivalent(to other: SIPURI) -> Bool {
        guard scheme == other.scheme else { return false }
        switch scheme.kind {
        case .sip, .sips:
            return user == other.user && password == other.password
                && Self.sameHost(host, other.host) && port == other.port
                && Self.sameParameters(parameters, other.parameters)
                && Self.headerSet(headers) == Self.headerSet(other.headers)
        case .tel:
            return Self.telNumber(user) == Self.telNumber(other.user)
                && Self.parameterSet(parameters) == Self.parameterSet(other.parameters)
        case .other:
            return opaque == other.opaque
        }
    }

    static func sameHost(_ a: SIPHost?, _ b: SIPHost?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        if a.kind == .ipv6, b.kind == .ipv6, let x = ipv6Bytes(a.address), let y = ipv6Bytes(b.address) {
            return x == y
        }
        return a.kind == b.kind && a.address.lowercasedASCII == b.address.lowercasedASCII
    }

    /// The 16 octets of an IPv6 address (RFC 4291 text forms, IPv4-mapped tails included).
    static func ipv6Bytes(_ text: String) -> [UInt8]? {
        var address = in6_addr()
        guard inet_pton(AF_INET6, text, &address) == 1 else { return nil }
        return withUnsafeBytes(of: &address) { Array($0) }
    }

    static func sameParameters(_ a: SIPParameters, _ b: SIPParameters) -> Bool {
        let x = firstValues(a)
        let y = firstValues(b)
        for (name, value) in x {
            if let theirs = y[name] {
                if theirs != value { return false }
            } else if significantParameters.contains(name) {
                return false
            }
        }
        for name in y.keys where x[name] == nil && significantParameters.contains(name) { return false }
        return true
    }

    /// Lower-cased name → lower-cased, %HH-decoded value ("" for a flag); first occurrence wins.
    static func firstValues(_ parameters: SIPParameters) -> [String: String] {
        var out: [String: String] = [:]
        for p in parameters where out[p.name.lowercasedASCII] == nil {
            out[p.name.lowercasedASCII] = percentDecoded(p.value ?? "").lowercasedASCII
        }
        return out
    }

    static func parameterSet(_ parameters: SIPParameters) -> [String] {
        parameters.map { $0.name.lowercasedASCII + "=" + percentDecoded($0.value ?? "").lowercasedASCII }.sorted()
    }

    static func headerSet(_ headers: SIPParameters) -> [String] {
        headers.map { percentDecoded($0.name).lowercasedASCII + "=" + percentDecoded($0.value ?? "") }.sorted()
    }

    /// RFC 3966 §4: visual separators are not significant; hex digits compare case-insensitively.
    static func telNumber(_ number: String?) -> String? {
        number.map { String($0.filter { !"-.()".contains($0) }).lowercasedASCII }
    }

    static func percentDecoded(_ text: String) -> String {
        guard text.utf8.contains(ByteClass.percent) else { return text }
        var copy = text
        return copy.withUTF8 { URIScanner.percentDecoded($0, 0..<$0.count) }
    }
}

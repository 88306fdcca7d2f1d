/// A Digest challenge from a `WWW-Authenticate` (401) or `Proxy-Authenticate` (407) header
/// value: RFC 7616 §3.3, RFC 3261 §22.1 / §25.1 `digest-cln`, RFC 8760 §2.
public struct DigestChallenge: Sendable, Hashable {
    /// `realm` (required).
    public var realm: String
    /// `nonce` (required).
    public var nonce: String
    /// `opaque`, echoed unchanged (RFC 7616 §3.3).
    public var opaque: String?
    /// `stale=true`: the nonce expired but the credentials were right (RFC 7616 §3.3).
    public var stale: Bool
    /// `algorithm`; ``DigestAlgorithm/md5`` when absent (RFC 2617 §3.2.1).
    public var algorithm: DigestAlgorithm
    /// Whether `algorithm` was present (we echo it only then, for RFC 2069/2617 servers).
    public var algorithmIsExplicit: Bool
    /// `qop` options we support, in the server's order; empty = no qop (RFC 2069 mode).
    public var qopOptions: [DigestQoP]
    /// `userhash=true` (RFC 7616 §3.4.4).
    public var userhash: Bool
    /// `charset` (RFC 7616 §3.3: only "UTF-8" is defined); nil when absent.
    public var charset: String?
    /// `domain`: the space-separated URI list (RFC 7616 §3.3).
    public var domain: [String]
    /// Parameters we do not interpret, kept in order (RFC 7616 §3.3: ignore unknown ones).
    public var otherParameters: [AuthParam]

    /// Creates a challenge (servers and tests).
    public init(
        realm: String, nonce: String, opaque: String? = nil, stale: Bool = false,
        algorithm: DigestAlgorithm? = nil, qopOptions: [DigestQoP] = [.auth], userhash: Bool = false,
        charset: String? = nil, domain: [String] = [], otherParameters: [AuthParam] = []
    ) {
        self.realm = realm
        self.nonce = nonce
        self.opaque = opaque
        self.stale = stale
        self.algorithm = algorithm ?? .md5
        self.algorithmIsExplicit = algorithm != nil
        self.qopOptions = qopOptions
        self.userhash = userhash
        self.charset = charset
        self.domain = domain
        self.otherParameters = otherParameters
    }

    /// Parses the first challenge of a header value, which must be a usable Digest challenge.
    ///
    /// - Throws: ``DigestError`` — `.syntax`, `.unsupportedScheme`, `.missingParameter`,
    ///   `.unsupportedAlgorithm`, `.unsupportedQoP`, …
    public init(parsing headerValue: String) throws(DigestError) {
        let elements = try AuthParamsParser.parse(headerValue)
        try self.init(element: elements[0])
    }

    /// Every usable Digest challenge in one or more header values (RFC 3261 §22.2: one per
    /// header row; RFC 7235 §4.1: several per row). Other schemes, unsupported algorithms,
    /// challenges whose qop we cannot honour and semantically broken ones (missing realm or
    /// nonce, bad stale/userhash/charset) are skipped (RFC 7616 §3.7); syntax errors are not.
    ///
    /// - Throws: a syntax error of any value, or `.noUsableChallenge` when none remains.
    public static func parseAll(_ headerValues: [String]) throws(DigestError) -> [DigestChallenge] {
        var result: [DigestChallenge] = []
        var firstSkip: DigestError?
        for value in headerValues {
            for element in try AuthParamsParser.parse(value) {
                do {
                    result.append(try DigestChallenge(element: element))
                } catch {
                    switch error.code {
                    case .unsupportedScheme, .unsupportedAlgorithm, .unsupportedQoP, .missingParameter,
                        .invalidParameterValue:
                        firstSkip = firstSkip ?? error
                    default:
                        throw error
                    }
                }
            }
        }
        guard !result.isEmpty else {
            throw DigestError(.noUsableChallenge, firstSkip.map { "\($0.code.rawValue) \($0.detail)" } ?? "")
        }
        return result
    }

    init(element: AuthSchemeElement) throws(DigestError) {
        guard element.scheme.lowercased() == "digest" else {
            throw DigestError(.unsupportedScheme, element.scheme, offset: element.offset)
        }
        guard element.token68 == nil else { throw DigestError(.syntax, "token68 in Digest", offset: element.offset) }
        var realm: String?
        var nonce: String?
        self.init(realm: "", nonce: "", qopOptions: [])
        for param in element.params {
            switch param.name {
            case "realm": realm = param.value
            case "nonce": nonce = param.value
            case "opaque": opaque = param.value
            case "stale": stale = try Self.boolean(param)
            case "userhash": userhash = try Self.boolean(param)
            case "charset": charset = param.value
            case "domain": domain = param.value.split(separator: " ").map(String.init)
            case "algorithm":
                guard let parsed = DigestAlgorithm(token: param.value) else {
                    throw DigestError(.unsupportedAlgorithm, param.value, offset: element.offset)
                }
                algorithm = parsed
                algorithmIsExplicit = true
            case "qop":
                var options: [DigestQoP] = []
                for token in param.value.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }) {
                    if let qop = DigestQoP(token: token), !options.contains(qop) { options.append(qop) }
                }
                guard !options.isEmpty else { throw DigestError(.unsupportedQoP, param.value, offset: element.offset) }
                qopOptions = options
            default:
                otherParameters.append(param)
            }
        }
        guard let realm else { throw DigestError(.missingParameter, "realm", offset: element.offset) }
        guard let nonce, !nonce.isEmpty else { throw DigestError(.missingParameter, "nonce", offset: element.offset) }
        if let charset, charset.lowercased() != "utf-8" {
            throw DigestError(.invalidParameterValue, "charset", offset: element.offset)
        }
        self.realm = realm
        self.nonce = nonce
    }

    /// `stale` / `userhash`: "true" / "false", case-insensitive (RFC 7616 §3.3).
    private static func boolean(_ param: AuthParam) throws(DigestError) -> Bool {
        switch param.value.lowercased() {
        case "true": true
        case "false": false
        default: throw DigestError(.invalidParameterValue, param.name)
        }
    }

    /// The qop to answer with (RFC 7616 §3.4): `auth` whenever offered — what SIP servers
    /// expect; `auth-int` when it is the only option, or when `preferAuthInt` and a body is
    /// present; nil when the challenge has no qop (RFC 2069 compatibility).
    public func chooseQoP(hasBody: Bool, preferAuthInt: Bool = false) -> DigestQoP? {
        guard !qopOptions.isEmpty else { return nil }
        if preferAuthInt, hasBody, qopOptions.contains(.authInt) { return .authInt }
        return qopOptions.contains(.auth) ? .auth : .authInt
    }

    /// The strongest of several challenges for one realm (RFC 8760 §2.4: SHA-512-256 >
    /// SHA-256 > MD5); ties keep the server's order (RFC 7616 §3.7).
    public static func strongest(_ challenges: [DigestChallenge]) -> DigestChallenge? {
        var best: DigestChallenge?
        for challenge in challenges where challenge.algorithm.strength > (best?.algorithm.strength ?? 0) {
            best = challenge
        }
        return best
    }
}

import SIPCore

/// Why a UAS refuses a request before any transaction user sees it (RFC 3261 §8.2), and the
/// response that says so. Produced by `RequestValidator` (and, for the merged-request check
/// that needs the endpoint's transactions, by the endpoint itself).
public enum RequestRejection: Sendable, Hashable, CustomStringConvertible {
    /// RFC 3261 §7.1, §21.5.7: the Request-Line names a version other than `SIP/2.0`.
    case versionNotSupported(String)
    /// RFC 3261 §8.1.1, §21.4.1: a header every request must carry is missing.
    case missingHeader(SIPHeaderName)
    /// RFC 3261 §7.3.1: a header that takes one value appears more than once.
    case repeatedHeader(SIPHeaderName)
    /// RFC 3261 §8.1.1.5, §21.4.1: the CSeq method differs from the Request-Line method.
    case cseqMethodMismatch(requestLine: SIPMethod, cseq: SIPMethod)
    /// RFC 3261 §8.2.1: a method we recognise but do not support; `Allow` lists what we do.
    case methodNotAllowed(SIPMethod, allow: String)
    /// RFC 3261 §21.5.2 (and RFC 4475 §3.1.1.2, §3.1.1.5): a method we do not recognise at all.
    case methodNotImplemented(SIPMethod, allow: String)
    /// RFC 3261 §8.2.2.1: the Request-URI scheme is not one we accept.
    case unsupportedURIScheme(String)
    /// RFC 3261 §8.2.2.2: a request merged on its way to us (a copy that forked and came back).
    case loopDetected
    /// RFC 3261 §8.2.2.3: `Require` names option tags we do not support; `Unsupported` lists them.
    case badExtension([String])

    /// The status code (RFC 3261 §21).
    public var statusCode: Int {
        switch self {
        case .versionNotSupported: 505
        case .missingHeader, .repeatedHeader, .cseqMethodMismatch: 400
        case .methodNotAllowed: 405
        case .methodNotImplemented: 501
        case .unsupportedURIScheme: 416
        case .loopDetected: 482
        case .badExtension: 420
        }
    }

    /// The reason phrase; a 400 names the problem (§21.4.1: "The reason phrase SHOULD identify
    /// the syntax problem in more detail").
    public var reasonPhrase: String {
        switch self {
        case .missingHeader(let name): "Missing \(name.canonicalName) Header"
        case .repeatedHeader(let name): "Multiple \(name.canonicalName) Headers"
        case .cseqMethodMismatch: "CSeq Method Mismatch"
        default: SIPResponse.defaultReason(statusCode)
        }
    }

    /// Header fields the response must carry: `Allow` with 405 (§8.2.1, MUST) and with 501,
    /// `Unsupported` with 420 (§8.2.2.3, MUST).
    public var responseHeaders: [(SIPHeaderName, String)] {
        switch self {
        case .methodNotAllowed(_, let allow), .methodNotImplemented(_, let allow): [(.allow, allow)]
        case .badExtension(let tags): [(.unsupported, tags.joined(separator: ", "))]
        default: []
        }
    }

    /// One line for logs (the endpoint reports it as ``EndpointEvent/discarded(_:)``).
    public var description: String {
        switch self {
        case .versionNotSupported(let version): "505 version \(version)"
        case .missingHeader, .repeatedHeader: "400 \(reasonPhrase)"
        case .cseqMethodMismatch(let line, let cseq): "400 CSeq method \(cseq) for a \(line) request"
        case .methodNotAllowed(let method, _): "405 method \(method) not allowed"
        case .methodNotImplemented(let method, _): "501 method \(method) not recognised"
        case .unsupportedURIScheme(let scheme): "416 Request-URI scheme \(scheme)"
        case .loopDetected: "482 merged request (same From tag, Call-ID and CSeq as a running transaction)"
        case .badExtension(let tags): "420 unsupported Require: \(tags.joined(separator: ", "))"
        }
    }
}

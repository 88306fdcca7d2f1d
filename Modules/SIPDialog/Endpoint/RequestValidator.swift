import SIPCore

/// The checks a UAS makes on a new request before any transaction user sees it (RFC 3261
/// §8.2), as one pure decision: ``check(_:)`` returns the rejection to answer with, or nil.
///
/// Checks run in this order, so a request with several faults gets the answer RFC 4475 expects
/// (`mismatch02`: an unknown method with a mismatched CSeq gets 501, not 400):
/// 1. version `SIP/2.0`, case-insensitive (§7.1) → 505 (§21.5.7; RFC 4475 §3.1.2.16 `badvers`);
/// 2. To, From, Call-ID, CSeq and Via present (§8.1.1) and To, From, Call-ID, CSeq and
///    Max-Forwards not repeated (§7.3.1) → 400 naming the header (RFC 4475 §3.3.1 `insuf`, §3.3.8 `multi01`);
/// 3. the method: recognised but not in ``allowed`` → 405 with Allow (§8.2.1); not recognised
///    at all → 501 with Allow (§21.5.2; RFC 4475 §3.1.1.2 `intmeth`, §3.1.1.5 `esc02`,
///    §3.1.2.18 `mismatch02`); RFC 4475 §3.3.7 `regaut01` (REGISTER to a UA) gets 405;
/// 4. CSeq method equal to the Request-Line method (§8.1.1.5) → 400 (RFC 4475 §3.1.2.17 `mismatch01`);
/// 5. the Request-URI scheme (§8.2.2.1) → 416 (RFC 4475 §3.3.2 `unkscm`, §3.3.3 `novelsc`);
/// 6. `Require` option tags we do not support (§8.2.2.3) → 420 with Unsupported (RFC 4475
///    §3.3.5 `bext01`); never for ACK or CANCEL, whose Require "MUST be ignored".
///
/// Max-Forwards: a UA is not a proxy; it neither decrements nor checks it (§16.3 step 3 and
/// 483 are proxy behaviour), so `Max-Forwards: 0` is processed normally (RFC 4475 §3.3.11 `zeromf`)
/// and a request without it is accepted (§8.1.1.6 binds the UAC; RFC 2543 peers omit it,
/// RFC 4475 §3.4.1 `inv2543` must be accepted). The merged-request check (§8.2.2.2, 482) needs the
/// running transactions and is made by ``SIPEndpoint``.
package struct RequestValidator: Sendable {
    /// Methods this UAS supports (`Allow`).
    public var allowed: Set<SIPMethod>
    /// The `Allow` value sent with 405 and 501.
    public var allowHeader: String
    /// Option tags we support, lower-cased (tokens compare case-insensitively, §7.3.1).
    public var supportedOptionTags: Set<String>
    /// Request-URI schemes we accept, lower-cased.
    public var uriSchemes: Set<String>

    /// Methods defined by RFC 3261 and the SIP extensions in common use: 3262 PRACK, 6665
    /// SUBSCRIBE/NOTIFY, 3903 PUBLISH, 6086 INFO, 3515 REFER, 3428 MESSAGE, 3311 UPDATE.
    /// Anything else is "not recognised" (501), not merely "not allowed" (405).
    public static let recognizedMethods: Set<SIPMethod> = [
        .invite, .ack, .bye, .cancel, .register, .options, .prack, .subscribe, .notify, .publish, .info,
        .refer, .message, .update,
    ]

    /// - Parameters:
    ///   - allow: the `Allow` list, e.g. `"INVITE, ACK, CANCEL, BYE, OPTIONS"`.
    ///   - supported: the `Supported` option tags, e.g. `"path, outbound, timer"`.
    ///   - uriSchemes: Request-URI schemes accepted.
    public init(allow: String, supported: String, uriSchemes: Set<String> = ["sip", "sips"]) {
        let methods = Self.tokens(allow)
        self.allowed = Set(methods.map { SIPMethod($0) })
        self.allowHeader = methods.joined(separator: ", ")
        self.supportedOptionTags = Set(Self.tokens(supported).map { $0.lowercased() })
        self.uriSchemes = Set(uriSchemes.map { $0.lowercased() })
    }

    /// The rejection for `request`, or nil when it may go to the transaction user.
    public func check(_ request: SIPRequest) -> RequestRejection? {
        if !Self.isVersion2(request.version) { return .versionNotSupported(request.version) }
        if let problem = Self.headerProblem(request.headers) { return problem }
        let method = request.method
        if !allowed.contains(method) {
            return Self.recognizedMethods.contains(method)
                ? .methodNotAllowed(method, allow: allowHeader) : .methodNotImplemented(method, allow: allowHeader)
        }
        guard let cseq = try? request.headers.cseq() else { return .missingHeader(.cseq) }
        if cseq.method != method { return .cseqMethodMismatch(requestLine: method, cseq: cseq.method) }
        let scheme = request.uri.scheme.name
        if !uriSchemes.contains(scheme) { return .unsupportedURIScheme(scheme) }
        if method != .ack && method != .cancel {
            let unsupported = request.headers.require.filter { !supportedOptionTags.contains($0.lowercased()) }
            if !unsupported.isEmpty { return .badExtension(unsupported) }
        }
        return nil
    }

    /// §7.1: "SIP/2.0", compared case-insensitively.
    static func isVersion2(_ version: String) -> Bool {
        version.utf8.elementsEqual("sip/2.0".utf8) { ($0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0) == $1 }
    }

    /// §8.1.1 mandatory headers present, §7.3.1 single-valued headers not repeated.
    static func headerProblem(_ headers: SIPHeaders) -> RequestRejection? {
        let mandatory: [SIPHeaderName] = [.via, .to, .from, .callID, .cseq]
        for name in mandatory where !headers.contains(name) { return .missingHeader(name) }
        let single: [SIPHeaderName] = [.to, .from, .callID, .cseq, .maxForwards]
        for name in single where headers.fields(name).count > 1 { return .repeatedHeader(name) }
        return nil
    }

    /// The comma-separated tokens of a header value.
    static func tokens(_ list: String) -> [String] {
        list.split(separator: ",").map { $0.trimmingASCIIWhitespace }.filter { !$0.isEmpty }
    }
}

extension Substring {
    fileprivate var trimmingASCIIWhitespace: String {
        var s = self[...]
        while let c = s.first, c == " " || c == "\t" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\t" { s = s.dropLast() }
        return String(s)
    }
}

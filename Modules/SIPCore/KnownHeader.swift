/// The header names SIPCore recognises while indexing a message, with their canonical spelling
/// and compact form (RFC 3261 §7.3.3 and the IANA SIP "Header Fields" registry).
///
/// Recognition happens on raw bytes with no allocation; the raw value is the index into
/// ``table``.
package enum KnownHeader: UInt8, Sendable, CaseIterable {
    case accept, acceptContact, acceptEncoding, acceptLanguage, alertInfo, allow, allowEvents
    case authenticationInfo, authorization, callID, callInfo, contact, contentDisposition
    case contentEncoding, contentLanguage, contentLength, contentType, cseq, date, errorInfo
    case event, expires, flowTimer, from, identity, identityInfo, inReplyTo, maxForwards
    case mimeVersion, minExpires, minSE, organization, pAssertedIdentity, pPreferredIdentity
    case path, priority, privacy, proxyAuthenticate, proxyAuthorization, proxyRequire, rack
    case reason, recordRoute, referTo, referredBy, rejectContact, replyTo, requestDisposition
    case require, retryAfter, route, rseq, server, serviceRoute, sessionExpires, sipETag
    case sipIfMatch, subject, subscriptionState, supported, timestamp, to, unsupported
    case userAgent, via, warning, wwwAuthenticate

    /// Canonical name and compact letter, in declaration order.
    private static let table: [(name: StaticString, compact: UInt8?)] = [
        ("Accept", nil), ("Accept-Contact", 0x61), ("Accept-Encoding", nil), ("Accept-Language", nil),
        ("Alert-Info", nil), ("Allow", nil), ("Allow-Events", 0x75), ("Authentication-Info", nil),
        ("Authorization", nil), ("Call-ID", 0x69), ("Call-Info", nil), ("Contact", 0x6D),
        ("Content-Disposition", nil), ("Content-Encoding", 0x65), ("Content-Language", nil),
        ("Content-Length", 0x6C), ("Content-Type", 0x63), ("CSeq", nil), ("Date", nil),
        ("Error-Info", nil), ("Event", 0x6F), ("Expires", nil), ("Flow-Timer", nil), ("From", 0x66),
        ("Identity", 0x79), ("Identity-Info", 0x6E), ("In-Reply-To", nil), ("Max-Forwards", nil),
        ("MIME-Version", nil), ("Min-Expires", nil), ("Min-SE", nil), ("Organization", nil),
        ("P-Asserted-Identity", nil), ("P-Preferred-Identity", nil), ("Path", nil), ("Priority", nil),
        ("Privacy", nil), ("Proxy-Authenticate", nil), ("Proxy-Authorization", nil),
        ("Proxy-Require", nil), ("RAck", nil), ("Reason", nil), ("Record-Route", nil),
        ("Refer-To", 0x72), ("Referred-By", 0x62), ("Reject-Contact", 0x6A), ("Reply-To", nil),
        ("Request-Disposition", 0x64), ("Require", nil), ("Retry-After", nil), ("Route", nil),
        ("RSeq", nil), ("Server", nil), ("Service-Route", nil), ("Session-Expires", 0x78),
        ("SIP-ETag", nil), ("SIP-If-Match", nil), ("Subject", 0x73), ("Subscription-State", nil),
        ("Supported", 0x6B), ("Timestamp", nil), ("To", 0x74), ("Unsupported", nil),
        ("User-Agent", nil), ("Via", 0x76), ("Warning", nil), ("WWW-Authenticate", nil),
    ]

    package var canonicalName: String { table(self).name.description }
    package var compact: UInt8? { table(self).compact }

    private func table(_ header: KnownHeader) -> (name: StaticString, compact: UInt8?) {
        KnownHeader.table[Int(header.rawValue)]
    }

    /// The header whose long or compact name equals `bytes[range]`, ignoring case.
    @inline(__always)
    package static func lookup(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> KnownHeader? {
        let count = range.count
        guard count > 0 else { return nil }
        if count == 1 {
            switch ByteClass.lower(bytes[range.lowerBound]) {
            case 0x61: return .acceptContact
            case 0x62: return .referredBy
            case 0x63: return .contentType
            case 0x64: return .requestDisposition
            case 0x65: return .contentEncoding
            case 0x66: return .from
            case 0x69: return .callID
            case 0x6A: return .rejectContact
            case 0x6B: return .supported
            case 0x6C: return .contentLength
            case 0x6D: return .contact
            case 0x6E: return .identityInfo
            case 0x6F: return .event
            case 0x72: return .referTo
            case 0x73: return .subject
            case 0x74: return .to
            case 0x75: return .allowEvents
            case 0x76: return .via
            case 0x78: return .sessionExpires
            case 0x79: return .identity
            default: return nil
            }
        }
        return lookupLong(bytes, range)
    }

    /// The header whose long name equals `bytes[range]`, ignoring case (generated switch: no tables, no
    /// allocation, no retain/release on the hot path).
    @inline(__always)
    private static func lookupLong(_ p: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> KnownHeader? {
        switch (range.count, ByteClass.lower(p[range.lowerBound])) {
        case (2, 0x74):
            if p.equalsLowercase(range, "to") { return .to }
            return nil
        case (3, 0x76):
            if p.equalsLowercase(range, "via") { return .via }
            return nil
        case (4, 0x63):
            if p.equalsLowercase(range, "cseq") { return .cseq }
            return nil
        case (4, 0x64):
            if p.equalsLowercase(range, "date") { return .date }
            return nil
        case (4, 0x66):
            if p.equalsLowercase(range, "from") { return .from }
            return nil
        case (4, 0x70):
            if p.equalsLowercase(range, "path") { return .path }
            return nil
        case (4, 0x72):
            if p.equalsLowercase(range, "rack") { return .rack }
            if p.equalsLowercase(range, "rseq") { return .rseq }
            return nil
        case (5, 0x61):
            if p.equalsLowercase(range, "allow") { return .allow }
            return nil
        case (5, 0x65):
            if p.equalsLowercase(range, "event") { return .event }
            return nil
        case (5, 0x72):
            if p.equalsLowercase(range, "route") { return .route }
            return nil
        case (6, 0x61):
            if p.equalsLowercase(range, "accept") { return .accept }
            return nil
        case (6, 0x6D):
            if p.equalsLowercase(range, "min-se") { return .minSE }
            return nil
        case (6, 0x72):
            if p.equalsLowercase(range, "reason") { return .reason }
            return nil
        case (6, 0x73):
            if p.equalsLowercase(range, "server") { return .server }
            return nil
        case (7, 0x63):
            if p.equalsLowercase(range, "call-id") { return .callID }
            if p.equalsLowercase(range, "contact") { return .contact }
            return nil
        case (7, 0x65):
            if p.equalsLowercase(range, "expires") { return .expires }
            return nil
        case (7, 0x70):
            if p.equalsLowercase(range, "privacy") { return .privacy }
            return nil
        case (7, 0x72):
            if p.equalsLowercase(range, "require") { return .require }
            return nil
        case (7, 0x73):
            if p.equalsLowercase(range, "subject") { return .subject }
            return nil
        case (7, 0x77):
            if p.equalsLowercase(range, "warning") { return .warning }
            return nil
        case (8, 0x69):
            if p.equalsLowercase(range, "identity") { return .identity }
            return nil
        case (8, 0x70):
            if p.equalsLowercase(range, "priority") { return .priority }
            return nil
        case (8, 0x72):
            if p.equalsLowercase(range, "refer-to") { return .referTo }
            if p.equalsLowercase(range, "reply-to") { return .replyTo }
            return nil
        case (8, 0x73):
            if p.equalsLowercase(range, "sip-etag") { return .sipETag }
            return nil
        case (9, 0x63):
            if p.equalsLowercase(range, "call-info") { return .callInfo }
            return nil
        case (9, 0x73):
            if p.equalsLowercase(range, "supported") { return .supported }
            return nil
        case (9, 0x74):
            if p.equalsLowercase(range, "timestamp") { return .timestamp }
            return nil
        case (10, 0x61):
            if p.equalsLowercase(range, "alert-info") { return .alertInfo }
            return nil
        case (10, 0x65):
            if p.equalsLowercase(range, "error-info") { return .errorInfo }
            return nil
        case (10, 0x66):
            if p.equalsLowercase(range, "flow-timer") { return .flowTimer }
            return nil
        case (10, 0x75):
            if p.equalsLowercase(range, "user-agent") { return .userAgent }
            return nil
        case (11, 0x69):
            if p.equalsLowercase(range, "in-reply-to") { return .inReplyTo }
            return nil
        case (11, 0x6D):
            if p.equalsLowercase(range, "min-expires") { return .minExpires }
            return nil
        case (11, 0x72):
            if p.equalsLowercase(range, "referred-by") { return .referredBy }
            if p.equalsLowercase(range, "retry-after") { return .retryAfter }
            return nil
        case (11, 0x75):
            if p.equalsLowercase(range, "unsupported") { return .unsupported }
            return nil
        case (12, 0x61):
            if p.equalsLowercase(range, "allow-events") { return .allowEvents }
            return nil
        case (12, 0x63):
            if p.equalsLowercase(range, "content-type") { return .contentType }
            return nil
        case (12, 0x6D):
            if p.equalsLowercase(range, "max-forwards") { return .maxForwards }
            if p.equalsLowercase(range, "mime-version") { return .mimeVersion }
            return nil
        case (12, 0x6F):
            if p.equalsLowercase(range, "organization") { return .organization }
            return nil
        case (12, 0x72):
            if p.equalsLowercase(range, "record-route") { return .recordRoute }
            return nil
        case (12, 0x73):
            if p.equalsLowercase(range, "sip-if-match") { return .sipIfMatch }
            return nil
        case (13, 0x61):
            if p.equalsLowercase(range, "authorization") { return .authorization }
            return nil
        case (13, 0x69):
            if p.equalsLowercase(range, "identity-info") { return .identityInfo }
            return nil
        case (13, 0x70):
            if p.equalsLowercase(range, "proxy-require") { return .proxyRequire }
            return nil
        case (13, 0x73):
            if p.equalsLowercase(range, "service-route") { return .serviceRoute }
            return nil
        case (14, 0x61):
            if p.equalsLowercase(range, "accept-contact") { return .acceptContact }
            return nil
        case (14, 0x63):
            if p.equalsLowercase(range, "content-length") { return .contentLength }
            return nil
        case (14, 0x72):
            if p.equalsLowercase(range, "reject-contact") { return .rejectContact }
            return nil
        case (15, 0x61):
            if p.equalsLowercase(range, "accept-encoding") { return .acceptEncoding }
            if p.equalsLowercase(range, "accept-language") { return .acceptLanguage }
            return nil
        case (15, 0x73):
            if p.equalsLowercase(range, "session-expires") { return .sessionExpires }
            return nil
        case (16, 0x63):
            if p.equalsLowercase(range, "content-encoding") { return .contentEncoding }
            if p.equalsLowercase(range, "content-language") { return .contentLanguage }
            return nil
        case (16, 0x77):
            if p.equalsLowercase(range, "www-authenticate") { return .wwwAuthenticate }
            return nil
        case (18, 0x70):
            if p.equalsLowercase(range, "proxy-authenticate") { return .proxyAuthenticate }
            return nil
        case (18, 0x73):
            if p.equalsLowercase(range, "subscription-state") { return .subscriptionState }
            return nil
        case (19, 0x61):
            if p.equalsLowercase(range, "authentication-info") { return .authenticationInfo }
            return nil
        case (19, 0x63):
            if p.equalsLowercase(range, "content-disposition") { return .contentDisposition }
            return nil
        case (19, 0x70):
            if p.equalsLowercase(range, "p-asserted-identity") { return .pAssertedIdentity }
            if p.equalsLowercase(range, "proxy-authorization") { return .proxyAuthorization }
            return nil
        case (19, 0x72):
            if p.equalsLowercase(range, "request-disposition") { return .requestDisposition }
            return nil
        case (20, 0x70):
            if p.equalsLowercase(range, "p-preferred-identity") { return .pPreferredIdentity }
            return nil
        default:
            return nil
        }
    }
}

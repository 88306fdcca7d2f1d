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

    /// Lower-cased names grouped by length, for allocation-free lookup.
    private static let byLength: [[(bytes: [UInt8], header: KnownHeader)]] = {
        var groups = [[(bytes: [UInt8], header: KnownHeader)]](repeating: [], count: 24)
        for header in KnownHeader.allCases {
            let name = table[Int(header.rawValue)].name
            let bytes = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
                .map(ByteClass.lower)
            groups[bytes.count].append((bytes, header))
        }
        return groups
    }()

    /// Compact letter → header, indexed by the lower-case letter minus `a`.
    private static let compactTable: [KnownHeader?] = {
        var out = [KnownHeader?](repeating: nil, count: 26)
        for header in KnownHeader.allCases {
            if let c = table[Int(header.rawValue)].compact { out[Int(c - 0x61)] = header }
        }
        return out
    }()

    package var canonicalName: String { table(self).name.description }
    package var compact: UInt8? { table(self).compact }

    private func table(_ header: KnownHeader) -> (name: StaticString, compact: UInt8?) {
        KnownHeader.table[Int(header.rawValue)]
    }

    /// The header whose long or compact name equals `bytes[range]`, ignoring case.
    @inline(__always)
    package static func lookup(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> KnownHeader? {
        let count = range.count
        if count == 1 {
            let c = ByteClass.lower(bytes[range.lowerBound])
            guard c &- 0x61 < 26 else { return nil }
            return compactTable[Int(c &- 0x61)]
        }
        guard count < byLength.count else { return nil }
        candidates: for candidate in byLength[count] {
            var j = 0
            for i in range {
                if ByteClass.lower(bytes[i]) != candidate.bytes[j] { continue candidates }
                j += 1
            }
            return candidate.header
        }
        return nil
    }
}

/// A parsed or built SIP message: a request or a response (RFC 3261 §7).
///
/// Parse a datagram (UDP, or one WebSocket message, RFC 7118 §5) with
/// `init(parsing:limits:)` (bytes or text); parse a byte stream (TCP, TLS) with ``SIPStreamFramer``.
public enum SIPMessage: Sendable {
    case request(SIPRequest)
    case response(SIPResponse)

    /// Parses one whole message from a datagram.
    ///
    /// - Leading CRLFs are skipped (RFC 3261 §7.5).
    /// - The body is framed by Content-Length; octets after it are ignored (RFC 4475 §3.1.1.x
    ///   dblreq). Without Content-Length the body runs to the end of the datagram (RFC 3261 §18.3).
    /// - A Content-Length larger than the remaining octets is an error (RFC 4475 §3.1.2.2).
    /// - Header lines may end in CRLF or, liberally, a bare LF; a datagram that ends right after a
    ///   header line ends the header section (RFC 5118 archive form).
    public init(parsing bytes: [UInt8], limits: SIPParserLimits = .default) throws(SIPParseError) {
        var start = 0
        while start + 1 < bytes.count, bytes[start] == ByteClass.cr, bytes[start + 1] == ByteClass.lf { start += 2 }
        guard start < bytes.count else { throw SIPParseError(.emptyMessage, offset: start) }
        let storage = start == 0 ? bytes : Array(bytes[start...])
        let head: ParsedHead = try storage.withUnsafeBufferPointer { (p) throws(SIPParseError) -> ParsedHead in
            try MessageHeadParser.parse(p, base: 0, end: p.count, limits: limits, datagram: true)
        }
        let available = storage.count - head.headerEnd
        let bodyLength: Int
        if let contentLength = head.contentLength {
            guard contentLength <= available else {
                throw SIPParseError(
                    .truncatedBody, offset: storage.count + start,
                    headerName: "Content-Length",
                    detail: "Content-Length \(contentLength) but \(available) octets follow")
            }
            bodyLength = contentLength
        } else {
            guard available <= limits.maxBodySize else {
                throw SIPParseError(.bodyTooLarge, offset: head.headerEnd + start)
            }
            bodyLength = available
        }
        self.init(storage: storage, head: head, body: head.headerEnd..<head.headerEnd + bodyLength)
    }

    /// Parses one whole message from text (tests, tools).
    public init(parsing text: String, limits: SIPParserLimits = .default) throws(SIPParseError) {
        try self.init(parsing: Array(text.utf8), limits: limits)
    }

    init(storage: [UInt8], head: ParsedHead, body: Range<Int>) {
        switch head.startLine {
        case .request(let method, let uri, let version):
            self = .request(
                SIPRequest(
                    storage: storage, head: head, method: method, uri: uri, version: version,
                    body: body))
        case .response(let version, let status, let reason):
            self = .response(
                SIPResponse(
                    storage: storage, head: head, version: version, status: status,
                    reason: reason, body: body))
        }
    }

    /// The request, if this is one.
    public var request: SIPRequest? {
        if case .request(let r) = self { return r }
        return nil
    }

    /// The response, if this is one.
    public var response: SIPResponse? {
        if case .response(let r) = self { return r }
        return nil
    }

    public var headers: SIPHeaders {
        get {
            switch self {
            case .request(let r): r.headers
            case .response(let r): r.headers
            }
        }
        set {
            switch self {
            case .request(var r):
                r.headers = newValue
                self = .request(r)
            case .response(var r):
                r.headers = newValue
                self = .response(r)
            }
        }
    }

    /// The body without copying.
    public var bodyBytes: ArraySlice<UInt8> {
        switch self {
        case .request(let r): r.bodyBytes
        case .response(let r): r.bodyBytes
        }
    }

    /// The wire form (the original bytes when nothing changed).
    public func serialized() -> [UInt8] {
        switch self {
        case .request(let r): r.serialized()
        case .response(let r): r.serialized()
        }
    }
}

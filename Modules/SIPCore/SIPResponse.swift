/// A SIP response (RFC 3261 §7.2): version, status code, reason phrase, headers and body.
public struct SIPResponse: Sendable {
    public var statusCode: Int { didSet { bytes.startLineChanged() } }
    public var version: String { didSet { bytes.startLineChanged() } }
    public var headers: SIPHeaders { didSet { bytes.headersChanged() } }
    /// The received start line, whole message and body, and the reason phrase, in one buffer.
    private var bytes: MessageBytes
    /// Where the reason phrase lies in `bytes` (for a built response: before the body).
    private var reasonRange: Range<Int>

    /// A new response. Content-Length is set from `body`.
    public init(
        statusCode: Int, reasonPhrase: String? = nil, headers: SIPHeaders = SIPHeaders(),
        body: [UInt8] = []
    ) {
        self.statusCode = statusCode
        self.version = "SIP/2.0"
        self.headers = headers
        let reason = Array((reasonPhrase ?? SIPResponse.defaultReason(statusCode)).utf8)
        self.bytes = MessageBytes(head: reason, body: body)
        self.reasonRange = 0..<reason.count
        self.headers.set(.contentLength, String(body.count))
    }

    /// A response to `request` with Via, From, To, Call-ID and CSeq copied (RFC 3261 §8.2.6.2),
    /// `toTag` added to To when it has none (§8.2.6.2: required except for 100).
    public init(
        to request: SIPRequest, statusCode: Int, reasonPhrase: String? = nil, toTag: String? = nil,
        headers extra: SIPHeaders = SIPHeaders(), body: [UInt8] = []
    ) {
        var headers = SIPHeaders()
        for field in request.headers {
            let name = field.name
            if name == .via || name == .from || name == .callID || name == .cseq
                || (name == .recordRoute && (101...299).contains(statusCode))
            {
                headers.add(name, field.value)
            } else if name == .to {
                var value = field.value
                if let toTag, let to = try? request.headers.to(), to.tag == nil { value += ";tag=" + toTag }
                headers.add(.to, value)
            }
        }
        for field in extra { headers.add(field.name, field.value) }
        self.init(statusCode: statusCode, reasonPhrase: reasonPhrase, headers: headers, body: body)
    }

    /// Not inlined into the parse: measured 70 instructions fewer per parsed message (the
    /// response is copied fewer times on its way into a ``SIPMessage``; decisions D43).
    @inline(never)
    init(
        storage: [UInt8], head: ParsedHead, version: Range<Int>, status: Int, reason: Range<Int>,
        body: Range<Int>
    ) {
        self.statusCode = status
        self.version = String(decoding: storage[version], as: UTF8.self)
        self.headers = SIPHeaders(storage: storage, slots: head.slots, index: head.index)
        self.bytes = MessageBytes(parsed: storage, startLineEnd: head.startLineRange.upperBound, body: body)
        self.reasonRange = reason
    }

    /// The reason phrase (UTF-8 allowed, RFC 3261 §25.1; may be empty, RFC 4475 §3.1.1.13).
    public var reasonPhrase: String {
        get { bytes.string(reasonRange) }
        set {
            reasonRange = bytes.replaceHead(
                with: newValue.utf8.map { $0 == ByteClass.cr || $0 == ByteClass.lf ? ByteClass.sp : $0 })
        }
    }

    /// The body (a copy). Setting it also sets Content-Length.
    public var body: [UInt8] {
        get { Array(bytes.body) }
        set {
            bytes.replaceBody(with: newValue)
            headers.set(.contentLength, String(newValue.count))
        }
    }

    /// The body without copying.
    public var bodyBytes: ArraySlice<UInt8> { bytes.body }

    /// Sets the body, Content-Length and (when given) Content-Type.
    public mutating func setBody(_ body: [UInt8], contentType: String?) {
        self.body = body
        if let contentType { headers.set(.contentType, contentType) }
    }

    /// 1xx.
    public var isProvisional: Bool { statusCode < 200 }

    /// The wire form; the original bytes if nothing changed.
    public func serialized() -> [UInt8] {
        if let original = bytes.original, !headers.isModified { return Array(original) }
        if let rawStartLine = bytes.rawStartLine {
            return MessageSerializer.serialize(startLine: rawStartLine, headers: headers, body: bytes.body)
        }
        var line = Array((version + " " + String(statusCode) + " ").utf8)
        line.append(contentsOf: bytes[reasonRange])
        line.append(ByteClass.cr)
        line.append(ByteClass.lf)
        return MessageSerializer.serialize(startLine: line[...], headers: headers, body: bytes.body)
    }

    /// The RFC 3261 §21 reason phrase for common codes.
    public static func defaultReason(_ code: Int) -> String {
        switch code {
        case 100: "Trying"
        case 180: "Ringing"
        case 181: "Call Is Being Forwarded"
        case 182: "Queued"
        case 183: "Session Progress"
        case 200: "OK"
        case 202: "Accepted"
        case 301: "Moved Permanently"
        case 302: "Moved Temporarily"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 407: "Proxy Authentication Required"
        case 408: "Request Timeout"
        case 415: "Unsupported Media Type"
        case 416: "Unsupported URI Scheme"
        case 420: "Bad Extension"
        case 423: "Interval Too Brief"
        case 480: "Temporarily Unavailable"
        case 481: "Call/Transaction Does Not Exist"
        case 483: "Too Many Hops"
        case 486: "Busy Here"
        case 487: "Request Terminated"
        case 488: "Not Acceptable Here"
        case 491: "Request Pending"
        case 500: "Server Internal Error"
        case 501: "Not Implemented"
        case 503: "Service Unavailable"
        case 504: "Server Time-out"
        case 505: "Version Not Supported"
        case 513: "Message Too Large"
        case 603: "Decline"
        default: ""
        }
    }
}

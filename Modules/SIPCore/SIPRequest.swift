/// A SIP request (RFC 3261 §7.1): method, Request-URI, version, headers and body.
///
/// A parsed request keeps its original bytes; until something is changed, ``serialized()``
/// returns them exactly. Build new requests with ``init(method:uri:headers:body:)``.
public struct SIPRequest: Sendable {
    public var method: SIPMethod { didSet { bytes.startLineChanged() } }
    /// `SIP/2.0` (RFC 3261 §7.1; other versions parse and are left to the caller, RFC 4475 §3.1.2.11).
    public var version: String { didSet { bytes.startLineChanged() } }
    public var headers: SIPHeaders { didSet { bytes.headersChanged() } }
    /// The received start line, whole message and body, and the raw Request-URI, in one buffer.
    private var bytes: MessageBytes
    private var uriStorage: URIStorage

    /// The Request-URI as received (offsets into `bytes`) or as set. A set URI is boxed
    /// (`indirect`): the request stays small to copy, and a parsed one never holds a `SIPURI`.
    enum URIStorage: Sendable {
        case raw(Range<Int>)
        indirect case parsed(SIPURI)
    }

    /// A new request. `Content-Length` is set from `body` (RFC 3261 §20.14); put the other
    /// mandatory headers (§8.1.1: To, From, CSeq, Call-ID, Max-Forwards, Via) in `headers`.
    public init(method: SIPMethod, uri: SIPURI, headers: SIPHeaders = SIPHeaders(), body: [UInt8] = []) {
        self.method = method
        self.version = "SIP/2.0"
        self.headers = headers
        self.bytes = MessageBytes(body: body)
        self.uriStorage = .parsed(uri)
        self.headers.set(.contentLength, String(body.count))
    }

    /// Not inlined into the parse: measured 70 instructions fewer per parsed message (the
    /// request is copied fewer times on its way into a ``SIPMessage``; decisions D43).
    @inline(never)
    init(
        storage: [UInt8], head: ParsedHead, method: Range<Int>, uri: Range<Int>, version: Range<Int>,
        body: Range<Int>
    ) {
        self.method = SIPMethod(String(decoding: storage[method], as: UTF8.self))
        self.version = String(decoding: storage[version], as: UTF8.self)
        self.headers = SIPHeaders(storage: storage, slots: head.slots, index: head.index)
        self.bytes = MessageBytes(parsed: storage, startLineEnd: head.startLineRange.upperBound, body: body)
        self.uriStorage = .raw(uri)
    }

    /// The Request-URI (parsed on access; it was validated when the message was parsed).
    public var uri: SIPURI {
        get {
            switch uriStorage {
            case .parsed(let uri):
                return uri
            case .raw(let range):
                let parsed: SIPURI? = bytes.buffer.withUnsafeBufferPointer { p in try? SIPURI(p, range) }
                return parsed ?? SIPURI(opaqueText: bytes.string(range))
            }
        }
        set {
            uriStorage = .parsed(newValue)
            bytes.startLineChanged()
        }
    }

    /// The Request-URI text exactly as written.
    public var rawURI: String {
        switch uriStorage {
        case .parsed(let uri): uri.description
        case .raw(let range): bytes.string(range)
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

    /// The wire form: the original bytes if nothing changed, else the start line, every header
    /// line (unchanged lines byte-exact), an empty line and the body.
    public func serialized() -> [UInt8] {
        if let original = bytes.original, !headers.isModified { return Array(original) }
        if let rawStartLine = bytes.rawStartLine {
            return MessageSerializer.serialize(startLine: rawStartLine, headers: headers, body: bytes.body)
        }
        let line = method.rawValue + " " + rawURI + " " + version + "\r\n"
        return MessageSerializer.serialize(startLine: Array(line.utf8)[...], headers: headers, body: bytes.body)
    }
}

extension SIPURI {
    init(opaqueText: String) {
        self.init(host: "")
        self.scheme = Scheme(kind: .other, name: "")
        self.host = nil
        self.opaque = opaqueText
    }
}

/// Concatenates start line, header lines, the empty line and the body.
enum MessageSerializer {
    static func serialize(startLine: ArraySlice<UInt8>, headers: SIPHeaders, body: ArraySlice<UInt8>) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(startLine.count + headers.serializedSize + 2 + body.count)
        out.append(contentsOf: startLine)
        headers.appendLines(to: &out)
        out.append(ByteClass.cr)
        out.append(ByteClass.lf)
        out.append(contentsOf: body)
        return out
    }
}

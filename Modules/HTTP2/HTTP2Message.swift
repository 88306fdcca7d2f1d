/// One HTTP/2 request as a server received it: pseudo-headers split out (RFC 9113 §8.3.1), the
/// other fields in order with lowercase names (§8.2.2), the body as received (cut at the
/// server's body limit, with ``bodyTruncated`` set — the handler answers 413 itself).
public struct HTTP2Request: Sendable, Hashable {
    public var method: String
    public var path: String
    public var scheme: String
    public var authority: String
    /// Regular header fields, in arrival order, names lowercase.
    public var headers: [HTTP2Field]
    public var body: [UInt8]
    /// More body arrived than the server keeps; ``body`` holds the first bytes.
    public var bodyTruncated = false
    /// The whole body's size as received (may exceed ``body``'s).
    public var bodyBytes = 0
    /// The connection it came on (its number within the server, from 1), for per-connection state.
    public var connection: Int = 0

    public init(
        method: String, path: String, scheme: String = "https", authority: String = "", headers: [HTTP2Field] = [],
        body: [UInt8] = []
    ) {
        self.method = method
        self.path = path
        self.scheme = scheme
        self.authority = authority
        self.headers = headers
        self.body = body
        bodyBytes = body.count
    }

    /// Every value of `name` (lowercase), in order.
    public func values(_ name: String) -> [String] { headers.filter { $0.name == name }.map(\.value) }

    /// The value of `name` when it occurs exactly once; nil when absent. Repeated fields are the
    /// caller's to refuse (APNs: DuplicateHeaders), see ``values(_:)``.
    public subscript(name: String) -> String? { values(name).first }
}

/// One header field (name lowercase on the wire, RFC 9113 §8.2.2).
public struct HTTP2Field: Sendable, Hashable {
    public var name: String
    public var value: String
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// A response: status, header fields (lowercase names) and body.
public struct HTTP2Response: Sendable, Hashable {
    public var status: Int
    public var headers: [HTTP2Field]
    public var body: [UInt8]

    public init(status: Int, headers: [HTTP2Field] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON answer (`content-type: application/json`).
    public static func json(_ status: Int, _ text: String, headers: [HTTP2Field] = []) -> HTTP2Response {
        HTTP2Response(
            status: status, headers: headers + [HTTP2Field("content-type", "application/json")], body: Array(text.utf8))
    }

    /// The value of `name`, if present.
    public subscript(name: String) -> String? { headers.first { $0.name == name }?.value }
}

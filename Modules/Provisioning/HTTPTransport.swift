/// One HTTP exchange as the platform client needs it; implemented over libcurl
/// (``CurlHTTPTransport``) and replaceable in tests.
public protocol HTTPTransport: Sendable {
    func send(_ request: HTTPRequest) async throws(PlatformError) -> HTTPResponse
}

public struct HTTPRequest: Sendable, Hashable {
    public var method: String
    public var url: String
    public var headers: [(String, String)]
    public var body: [UInt8]?

    public init(method: String, url: String, headers: [(String, String)] = [], body: [UInt8]? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    public static func == (lhs: HTTPRequest, rhs: HTTPRequest) -> Bool {
        lhs.method == rhs.method && lhs.url == rhs.url && lhs.body == rhs.body
            && lhs.headers.map { $0.0 + ":" + $0.1 } == rhs.headers.map { $0.0 + ":" + $0.1 }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(method)
        hasher.combine(url)
    }
}

public struct HTTPResponse: Sendable, Hashable {
    public var status: Int
    public var body: [UInt8]

    public init(status: Int, body: [UInt8]) {
        self.status = status
        self.body = body
    }
}

/// A failure of an HTTP/2 server or client: a code to compare on and one line of detail (never a
/// header value, a body or key bytes — they may carry bearer tokens).
public struct HTTP2Error: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// Certificates, keys, the handshake, ALPN other than h2, TLS records.
        case tls
        /// The peer broke HTTP/2 (RFC 9113 connection error), or nghttp2 refused an operation.
        case protocolError = "protocol"
        /// Socket set-up or IO.
        case network
        /// No answer within the request's time limit.
        case timeout
        /// An answer over the body limit.
        case tooLarge = "too_large"
        /// The client or server was closed.
        case closed
        /// A request that cannot be sent as given (bad URL, header).
        case badRequest = "bad_request"
    }

    public let code: Code
    public let detail: String

    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    public var description: String { detail }

    public static func == (lhs: HTTP2Error, rhs: HTTP2Error) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

/// Why a request was refused by ``HTTPRequestParser``: a code, the HTTP status to answer with, and
/// a one-line detail safe to send back as the response body.
public struct HTTPParseError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// Request line is not `method SP origin-form SP HTTP/1.x` (RFC 9112 §3).
        case badRequestLine = "bad-request-line"
        /// Target is not origin-form, or its percent-encoding is broken (RFC 9112 §3.2.1).
        case badTarget = "bad-target"
        /// Not HTTP/1.0 or HTTP/1.1 (→ 505).
        case unsupportedVersion = "unsupported-version"
        /// A header line that is not `token ":" OWS value OWS`, obs-fold, a bare LF or a CTL.
        case badHeader = "bad-header"
        /// Request line + headers above the limit (→ 431).
        case headerTooLarge = "header-too-large"
        /// More header lines than the limit (→ 431).
        case tooManyHeaders = "too-many-headers"
        /// Content-Length not a decimal number, or several that disagree (RFC 9112 §6.3).
        case badContentLength = "bad-content-length"
        /// Body above the limit (→ 413).
        case bodyTooLarge = "body-too-large"
        /// Transfer-Encoding (chunked) is not implemented (→ 501, RFC 9112 §6.1).
        case transferEncoding = "transfer-encoding"
        /// HTTP/1.1 without exactly one Host (RFC 9112 §3.2).
        case missingHost = "missing-host"
    }

    public let code: Code
    /// One line, no CR/LF.
    public let detail: String

    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    /// The response status for this error.
    public var status: Int {
        switch code {
        case .unsupportedVersion: 505
        case .headerTooLarge, .tooManyHeaders: 431
        case .bodyTooLarge: 413
        case .transferEncoding: 501
        case .badRequestLine, .badTarget, .badHeader, .badContentLength, .missingHost: 400
        }
    }

    public var description: String { "\(code.rawValue): \(detail)" }

    public static func == (lhs: HTTPParseError, rhs: HTTPParseError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

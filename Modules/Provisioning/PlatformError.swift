/// Why a platform API call failed — one clear line, compared on ``code``.
public struct PlatformError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// The API URL is not `http://…` or `https://…`.
        case badURL = "bad-url"
        /// 401/403: the Firebase token or the org JWT was refused.
        case unauthorized
        /// 5xx from the API.
        case serverError = "server-error"
        /// Another unexpected HTTP status (404, 400…).
        case httpStatus = "http-status"
        /// The body is not JSON or lacks a required field.
        case badResponse = "bad-response"
        /// No answer within the timeout.
        case timeout
        /// Connection refused, DNS failure, TLS failure…
        case network
        /// The API's TLS certificate did not verify (chain or host name).
        case certificate
    }

    public let code: Code
    public let detail: String
    /// The HTTP status when there was one.
    public let status: Int?

    public init(_ code: Code, _ detail: String, status: Int? = nil) {
        self.code = code
        self.detail = detail
        self.status = status
    }

    /// True for failures where the API never answered (exit 3), false when it answered badly (exit 1).
    public var isNetwork: Bool { code == .timeout || code == .network }

    /// The tool's exit for this failure: 6 certificate, 3 network, 1 a bad answer.
    package var exit: QRCommandResult.Exit {
        code == .certificate ? .certificate : (isNetwork ? .network : .invalidLine)
    }

    public var description: String { detail }

    public static func == (lhs: PlatformError, rhs: PlatformError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

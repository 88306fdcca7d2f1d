/// What a correct server does with one torture message (RFC 4475 §3, RFC 5118 §4).
public enum TortureExpectation: Sendable, Hashable, CustomStringConvertible {
    /// A valid request: answered, and never with 400 (RFC 4475 §3.1.1: "handled normally").
    /// Any status but 400 counts, a provisional one too (the request became a transaction).
    case handled
    /// Answered with one of `codes`; with `header`, that response carries the header field
    /// (RFC 4475 §3.3.5: 420 with `Unsupported`).
    case status([Int], header: String? = nil)
    /// Answered with an error: any final status from 400 to 699 (RFC 4475 §3.1.2.3, §3.3.9).
    case error
    /// Answered at all: 400, or handled (the RFC lets a liberal receiver accept the message).
    case answered
    /// Nothing sent back (a response to no request of the server's: RFC 3261 §18.1.2, §17.1.3).
    case dropped
    /// Over a stream: the connection closed by the server (a framing error is not recoverable:
    /// RFC 4475 §3.3.9); an error response before the close is allowed.
    case closed

    public var description: String {
        switch self {
        case .handled: "handled (any answer but 400)"
        case .status(let codes, let header):
            codes.map(String.init).joined(separator: " or ") + (header.map { " with \($0)" } ?? "")
        case .error: "an error (4xx-6xx)"
        case .answered: "400 or handled (liberal receiver)"
        case .dropped: "dropped (nothing sent back)"
        case .closed: "connection closed"
        }
    }

    /// Whether the expectation can be met before the wait ends: a final response settles every
    /// expectation but ``dropped`` (a later answer would break it) and ``closed`` (the close
    /// follows the error response).
    var settlesOnFinalResponse: Bool {
        switch self {
        case .dropped, .closed: false
        default: true
        }
    }
}

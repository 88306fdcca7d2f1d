/// Why a TURN allocation (or one of its requests) failed (RFC 8656 §7.3, §8, §9, §11, §12):
/// a ``Code`` to compare on, the server's status code when there was one, and one line of
/// context. Never carries the password.
public struct TURNError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// 401 to a request that carried our credentials: wrong username or password
        /// (RFC 8489 §9.2.5), or 441 Wrong Credentials (RFC 8656 §7.3).
        case unauthorized
        /// 438 Stale Nonce again and again (RFC 8489 §9.2.5).
        case staleNonce
        /// 437 Allocation Mismatch (RFC 8656 §7.2, §8): no allocation for this 5-tuple (a
        /// Refresh after expiry), or one exists already (an Allocate).
        case allocationMismatch
        /// 442 Unsupported Transport Protocol (RFC 8656 §7.2).
        case unsupportedTransport
        /// 403 Forbidden (RFC 8656 §9.2: the server refuses that peer).
        case forbidden
        /// 486 Allocation Quota Reached (RFC 8656 §7.2).
        case quotaReached
        /// 508 Insufficient Capacity (RFC 8656 §7.2).
        case insufficientCapacity
        /// Any other error response.
        case serverError
        /// RFC 8489 §6.2.1: no response after Rc retransmissions and Rm × RTO.
        case timeout
        /// A success response without what it must carry (XOR-RELAYED-ADDRESS).
        case badResponse
    }

    public let code: Code
    /// The STUN error code of the server's response (nil for timeouts and bad responses).
    public let status: Int?
    public let detail: String

    public init(_ code: Code, status: Int? = nil, _ detail: String = "") {
        self.code = code
        self.status = status
        self.detail = detail
    }

    /// From an error response's ERROR-CODE (RFC 8656 §19 codes).
    init(status: Int, reason: String, _ context: String) {
        let code: Code =
            switch status {
            case 401, 441: .unauthorized
            case 438: .staleNonce
            case 437: .allocationMismatch
            case 442: .unsupportedTransport
            case 403: .forbidden
            case 486: .quotaReached
            case 508: .insufficientCapacity
            default: .serverError
            }
        self.init(code, status: status, "\(context): \(status) \(reason)")
    }

    public static func == (lhs: TURNError, rhs: TURNError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
    public var description: String { detail.isEmpty ? "turn: \(code.rawValue)" : "turn: \(code.rawValue): \(detail)" }
}

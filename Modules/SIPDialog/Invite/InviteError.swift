/// Why a user command on an ``InviteUsage`` was refused. Compares equal on ``code``.
/// Protocol outcomes (busy, declined, 491) are events, never errors.
public struct InviteError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Hashable, Sendable {
        /// The command does not apply in the current state (e.g. `answer` on an outgoing call).
        case invalidState
        /// §14.1: an offer/answer exchange (re-INVITE or UPDATE) is already in progress.
        case requestPending
        /// The status code is not allowed for this command (e.g. `reject(status: 200)`).
        case invalidStatus
    }

    public let code: Code
    public let detail: String

    public init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }

    public static func == (lhs: InviteError, rhs: InviteError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public var description: String {
        detail.isEmpty ? "invite error \(code.rawValue)" : "invite error \(code.rawValue): \(detail)"
    }
}

/// A ``Call`` could not be set up.
public struct CallError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// The media socket could not be bound or SRTP set up.
        case media
        /// The peer's INVITE is unusable (no Contact, no From tag…).
        case badRequest
        /// The flow has no local binding yet (not connected).
        case notConnected
    }

    public var code: Code
    public var message: String
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
    public static func == (lhs: CallError, rhs: CallError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

/// A live-mode failure that is not a rule verdict: bad arguments, a peer that is not there, a
/// process that would not start. The tool maps `.usage` to 64 and the rest to 3.
public struct LiveError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure.
    public enum Code: Sendable, Hashable {
        /// Bad arguments or scenario (exit 64).
        case usage
        /// A socket or HTTP exchange failed (exit 3).
        case network
        /// Kamailio, the gateway or a SIP line could not be brought up (exit 3).
        case infrastructure
    }

    /// The code (equality is on it).
    public var code: Code
    /// One line for people.
    public var reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public static func == (lhs: LiveError, rhs: LiveError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
    public var description: String { reason }
}

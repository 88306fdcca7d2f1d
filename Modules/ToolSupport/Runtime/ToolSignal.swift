#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A POSIX signal a tool reacts to.
public struct ToolSignal: Hashable, Sendable, CustomStringConvertible {
    public let number: Int32
    public init(_ number: Int32) { self.number = number }

    /// SIGINT (Ctrl-C).
    public static let interrupt = ToolSignal(SIGINT)
    /// SIGTERM.
    public static let terminate = ToolSignal(SIGTERM)
    /// SIGHUP.
    public static let hangup = ToolSignal(SIGHUP)

    public var description: String {
        switch number {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        case SIGHUP: "SIGHUP"
        default: "signal \(number)"
        }
    }
}

/// A TLS failure of a ``TLSMemorySession``: one line, never key or record bytes.
public struct TLSMemoryError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

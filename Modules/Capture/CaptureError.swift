/// Why a capture could not be written or read: one line for the user, naming the file and the
/// line where it applies.
public struct CaptureError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// A trace file line that is not a trace record.
        case invalidTrace
        /// A file could not be opened or written.
        case file
        /// `--hep` is not `udp:HOST:PORT`, or the host does not resolve.
        case hepTarget
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    public static func == (a: CaptureError, b: CaptureError) -> Bool { a.code == b.code }
}

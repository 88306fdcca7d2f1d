import Synchronization

#if canImport(Glibc)
    import CLinux
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where tool output goes: standard output, standard error, or a buffer in tests.
public protocol OutputSink: Sendable {
    /// Writes `text` in full (callers pass whole lines).
    func write(_ text: String)
    /// Whether the sink is a terminal (text output by default).
    var isTerminal: Bool { get }
    /// The terminal's width in columns, when the sink is a terminal that says (`TIOCGWINSZ`).
    var columns: Int? { get }
}

extension OutputSink {
    public var columns: Int? { nil }

    /// The width to lay out for: the terminal's, or 80 when unknown (not a terminal, or one
    /// that does not say) — the width every terminal has had since the VT100.
    public var layoutWidth: Int { columns ?? 80 }
}

/// A file descriptor (1 = stdout, 2 = stderr), written with `write(2)`, retrying short writes.
public struct FileDescriptorSink: OutputSink {
    public let descriptor: Int32

    public init(_ descriptor: Int32) { self.descriptor = descriptor }

    /// Standard output.
    public static let standardOutput = FileDescriptorSink(1)
    /// Standard error.
    public static let standardError = FileDescriptorSink(2)

    public var isTerminal: Bool { isatty(descriptor) == 1 }

    /// Asked on every call, so a terminal resized mid-run is followed.
    public var columns: Int? {
        #if canImport(Glibc)
            let columns = Int(astra_terminal_columns(descriptor))
            return columns > 0 ? columns : nil
        #else
            return nil
        #endif
    }

    public func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer in
                #if canImport(Glibc)
                    Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                #else
                    Darwin.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                #endif
            }
            if written < 0 {
                if errno == EINTR { continue }
                return  // EPIPE or a closed descriptor: nothing useful left to do.
            }
            offset += written
        }
    }
}

/// An in-memory sink for tests.
public final class BufferSink: OutputSink {
    private let buffer = Mutex("")
    public let isTerminal: Bool
    public let columns: Int?

    public init(isTerminal: Bool = false, columns: Int? = nil) {
        self.isTerminal = isTerminal
        self.columns = columns
    }

    public func write(_ text: String) { buffer.withLock { $0 += text } }

    /// Everything written so far.
    public var text: String { buffer.withLock { $0 } }

    /// The lines written so far (without the trailing newline).
    public var lines: [String] { text.split(separator: "\n").map(String.init) }
}

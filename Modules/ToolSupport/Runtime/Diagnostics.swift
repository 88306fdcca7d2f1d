import SIPCore

/// Diagnostics on standard error: `<tool>: <message>`, filtered by `-v`/`-vv`, always redacted.
public final class Diagnostics: Sendable {
    /// How much to say. `-v` raises to ``verbose``, `-vv` to ``debug``.
    public enum Level: Int, Sendable, Comparable {
        case normal = 0
        case verbose = 1
        case debug = 2

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

        /// The level for a `-v` count (0, 1, 2+).
        public init(verbosity: Int) { self = Level(rawValue: min(max(verbosity, 0), 2)) ?? .debug }
    }

    public let tool: String
    public let level: Level
    /// Whether `--sip-trace` was given.
    public let sipTrace: Bool
    private let sink: any OutputSink

    public init(
        tool: String, level: Level = .normal, sipTrace: Bool = false,
        sink: any OutputSink = FileDescriptorSink.standardError
    ) {
        self.tool = tool
        self.level = level
        self.sipTrace = sipTrace
        self.sink = sink
    }

    /// `<tool>: <message>`, always shown. ``ToolMain`` uses it for the final error line.
    public func error(_ message: String) { line(message) }

    /// `<tool>: warning: <message>`, always shown.
    public func warning(_ message: String) { line("warning: " + message) }

    /// `<tool>: <message>` with `-v` or more.
    public func info(_ message: @autoclosure () -> String) {
        if level >= .verbose { line(message()) }
    }

    /// `<tool>: debug: <message>` with `-vv`.
    public func debug(_ message: @autoclosure () -> String) {
        if level >= .debug { line("debug: " + message()) }
    }

    /// A `--sip-trace` block (a whole SIP message with its header line), redacted, when enabled.
    public func trace(_ block: @autoclosure () -> String) {
        guard sipTrace else { return }
        var text = Redaction.redact(block())
        if text.utf8.last != UInt8(ascii: "\n") { text += "\n" }
        sink.write(text)
    }

    /// One line, always: redacted, and every control character (a server's ESC, BEL, CR, LF in
    /// a reason phrase or error body) replaced by a space, so nothing can rewrite the terminal.
    private func line(_ message: String) {
        sink.write("\(tool): \(Redaction.untrusted(message, limit: 4000))\n")
    }
}

/// A status line at the bottom of a terminal (stderr): redrawn in place with `\r` and "erase
/// to end of line" (ECMA-48 EL, `ESC [ K`), cleared before other output so events and
/// diagnostics never land in the middle of it. Does nothing when stderr is not a terminal.
public final class StatusLine: Sendable {
    private let sink: any OutputSink
    public let isEnabled: Bool

    public init(sink: any OutputSink = FileDescriptorSink.standardError) {
        self.sink = sink
        self.isEnabled = sink.isTerminal
    }

    /// Replaces the line with `text` (cut to `width` characters).
    public func show(_ text: String, width: Int = 118) {
        guard isEnabled else { return }
        let shown = text.count > width ? String(text.prefix(width - 1)) + "…" : text
        sink.write("\r\u{1B}[K" + shown)
    }

    /// Erases the line (before printing something else).
    public func clear() {
        guard isEnabled else { return }
        sink.write("\r\u{1B}[K")
    }
}

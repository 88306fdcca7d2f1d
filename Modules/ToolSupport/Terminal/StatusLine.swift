/// A status line at the bottom of a terminal (stderr): redrawn in place with `\r` and "erase
/// to end of line" (ECMA-48 EL, `ESC [ K`), cleared before other output so events and
/// diagnostics never land in the middle of it. Does nothing when stderr is not a terminal.
///
/// The line never reaches the terminal's last column: a line as wide as the terminal wraps
/// (or leaves the cursor pending a wrap), and the next `\r` then rewrites only its last row,
/// leaving a trail of half-lines. The width is asked of the terminal at each redraw
/// (`TIOCGWINSZ`, 80 when unknown), so a resized window is followed.
public final class StatusLine: Sendable {
    private let sink: any OutputSink
    public let isEnabled: Bool

    public init(sink: any OutputSink = FileDescriptorSink.standardError) {
        self.sink = sink
        self.isEnabled = sink.isTerminal
    }

    /// Columns a line may use: one less than the terminal's width.
    public var width: Int { max(1, sink.layoutWidth - 1) }

    /// Replaces the line with `text`, cut to ``width`` characters (or `width`, when given).
    public func show(_ text: String, width: Int? = nil) {
        guard isEnabled else { return }
        sink.write("\r\u{1B}[K" + Self.fit(text, to: width ?? self.width))
    }

    /// Erases the line (before printing something else).
    public func clear() {
        guard isEnabled else { return }
        sink.write("\r\u{1B}[K")
    }

    /// `text` cut to `width` characters, the last one an ellipsis when cut.
    public static func fit(_ text: String, to width: Int) -> String {
        guard text.count > width else { return text }
        guard width > 1 else { return String(text.prefix(max(0, width))) }
        return String(text.prefix(width - 1)) + "…"
    }
}

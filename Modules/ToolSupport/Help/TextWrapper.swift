/// Word-wraps plain text for help output (no ICU, no Foundation).
enum TextWrapper {
    /// Wraps `text` to `width` columns; lines after the first are prefixed by `indent` spaces,
    /// and the first line is assumed to start at column `firstColumn`. Explicit newlines are kept.
    static func wrap(_ text: String, width: Int, indent: Int, firstColumn: Int? = nil) -> String {
        let pad = String(repeating: " ", count: indent)
        var lines: [String] = []
        var column = firstColumn ?? indent
        var line = ""
        for (paragraphIndex, paragraph) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if paragraphIndex > 0 {
                lines.append(line)
                line = ""
                column = indent
            }
            for word in paragraph.split(separator: " ") {
                if !line.isEmpty && column + 1 + word.count > width {
                    lines.append(line)
                    line = ""
                    column = indent
                }
                if !line.isEmpty {
                    line += " "
                    column += 1
                }
                line += word
                column += word.count
            }
        }
        lines.append(line)
        return lines.enumerated().map { $0.offset == 0 ? $0.element : ($0.element.isEmpty ? "" : pad + $0.element) }
            .joined(separator: "\n")
    }
}

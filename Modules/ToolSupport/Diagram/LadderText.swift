/// Draws a ``SequenceDiagram`` for a terminal, one line per step, like sngrep's call flow:
///
///     time      #    127.0.0.1:40112              127.0.0.1:8443 (WSS)
///     0.000     1          │─────── REGISTER ────────▶│
///     0.004     2          │◀── 401 Unauthorized ─────│
///
/// It works a line at a time (``line(_:)``), so a live run can print each message as it
/// happens; a lane added later gets a column to the right. Colour (red for
/// ``SequenceDiagram/Style/error``, dim for muted) only when asked for (a terminal).
///
/// A `width` (the terminal's, 80 when unknown) bounds every line: the lanes narrow to fit it
/// (labels are cut with an ellipsis, never wrapped: a wrapped ladder line is unreadable) and a
/// note at the last lane is cut at the edge. A line is `16 + lanes × gap` columns wide.
public struct LadderText: Sendable {
    public private(set) var lanes: [SequenceDiagram.Lane]
    /// Columns between two lanes.
    public let gap: Int
    public let color: Bool
    /// Columns a line may use (nil: as wide as the gap makes it).
    public let width: Int?

    /// The time and number columns before the first lane.
    static let timeWidth = 11
    static let numberWidth = 5

    /// The narrowest lane: room for a short label (`BYE`, `200 OK`) between two life lines.
    public static let minimumGap = 12

    public init(lanes: [SequenceDiagram.Lane], gap: Int = 40, color: Bool = false, width: Int? = nil) {
        self.lanes = lanes
        var gap = gap
        if let width { gap = min(gap, Self.widestGap(lanes: lanes.count, width: width)) }
        self.gap = max(Self.minimumGap, gap)
        self.color = color
        self.width = width
    }

    /// The widest gap with which `lanes` lanes fit in `width` columns (at least ``minimumGap``:
    /// a terminal too narrow even for that gets lines cut at its edge by the terminal).
    public static func widestGap(lanes: Int, width: Int) -> Int {
        max(minimumGap, (width - timeWidth - numberWidth) / max(1, lanes))
    }

    /// A layout wide enough for the labels of `diagram` (within 24…60 columns per lane), and
    /// no wider than `width` when given.
    public init(fitting diagram: SequenceDiagram, color: Bool = false, width: Int? = nil) {
        var widest = 0
        for step in diagram.steps {
            switch step.mark {
            case .arrow(let from, let to):
                let span = max(1, abs(to - from))
                widest = max(widest, (step.label.count + 8 + span - 1) / span)
            case .note: continue
            }
        }
        for lane in diagram.lanes { widest = max(widest, lane.title.count + 2, (lane.subtitle?.count ?? 0) + 2) }
        self.init(lanes: diagram.lanes, gap: min(60, max(24, widest)), color: color, width: width)
    }

    /// Adds a lane (a party that appeared mid-run); returns its index.
    public mutating func addLane(_ lane: SequenceDiagram.Lane) -> Int {
        lanes.append(lane)
        return lanes.count - 1
    }

    /// The column of lane `index`'s life line.
    func column(_ index: Int) -> Int { Self.timeWidth + Self.numberWidth + gap / 2 + index * gap }

    /// The header: lane titles (and subtitles) centred over their life lines.
    public func header() -> String {
        var lines = [centred(\.title, first: "time", second: "#")]
        if lanes.contains(where: { $0.subtitle != nil }) { lines.append(centred({ $0.subtitle ?? "" }, first: "", second: "")) }
        return lines.joined(separator: "\n") + "\n"
    }

    private func centred(_ text: (SequenceDiagram.Lane) -> String, first: String, second: String) -> String {
        var row = Row(width: column(lanes.count - 1) + gap / 2)
        row.put(first, at: 0)
        row.put(second, at: Self.timeWidth)
        for (index, lane) in lanes.enumerated() {
            let title = Self.clip(text(lane), to: gap - 2)
            row.put(title, at: column(index) - title.count / 2)
        }
        return row.text
    }

    /// The whole diagram: header, one line per step, the legend.
    public func render(_ diagram: SequenceDiagram) -> String {
        var text = diagram.title.isEmpty ? "" : diagram.title + "\n"
        text += header()
        for step in diagram.steps { text += line(step) }
        for note in diagram.legend {
            var row = Row(width: 0)
            let shown = width.map { Self.clip(note.text, to: $0) } ?? note.text
            row.put(shown, at: 0)
            text += paint(row, note.style, 0, shown.count) + "\n"
        }
        return text
    }

    /// One step as one line (with its newline).
    public func line(_ step: SequenceDiagram.Step) -> String {
        var row = Row(width: column(lanes.count - 1) + gap / 2)
        row.put(Self.clip(step.time, to: Self.timeWidth - 1), at: 0)
        if let number = step.number { row.put(String(number), at: Self.timeWidth) }
        for index in lanes.indices { row.put("│", at: column(index)) }
        var start = 0, end = 0
        switch step.mark {
        case .arrow(let from, let to) where from != to && lanes.indices.contains(from) && lanes.indices.contains(to):
            let left = column(min(from, to)), right = column(max(from, to))
            let rightward = to > from
            let inner = right - left - 1
            let label = " " + Self.clip(step.label, to: max(1, inner - 6)) + " "
            var body = Array(repeating: Character("─"), count: inner)
            let offset = max(1, (inner - label.count) / 2)
            for (i, c) in label.enumerated() where offset + i < inner - 1 { body[offset + i] = c }
            if rightward { body[inner - 1] = "▶" } else { body[0] = "◀" }
            row.put(String(body), at: left + 1)
            (start, end) = (left + 1, right)
        case .arrow(let lane, _), .note(let lane):
            let at = column(min(max(0, lane), lanes.count - 1))
            var note = "├ " + step.label
            if let width, at + note.count > width { note = Self.clip(note, to: max(2, width - at)) }
            row.put(note, at: at)
            (start, end) = (at, at + note.count)
        }
        return paint(row, step.style, start, end) + "\n"
    }

    private func paint(_ row: Row, _ style: SequenceDiagram.Style, _ start: Int, _ end: Int) -> String {
        let text = row.text
        guard color, style != .normal else { return text }
        let code = style == .error ? "\u{1B}[31m" : "\u{1B}[2m"
        let chars = Array(text)
        let from = min(start, chars.count), to = min(max(end, from), chars.count)
        return String(chars[..<from]) + code + String(chars[from..<to]) + "\u{1B}[0m" + String(chars[to...])
    }

    /// `text` cut to `width` characters with an ellipsis.
    static func clip(_ text: String, to width: Int) -> String {
        guard text.count > width else { return text }
        guard width > 1 else { return String(text.prefix(width)) }
        return String(text.prefix(width - 1)) + "…"
    }

    /// A line of characters written at columns, trailing spaces trimmed.
    struct Row {
        var cells: [Character]
        init(width: Int) { cells = Array(repeating: " ", count: max(0, width)) }
        mutating func put(_ text: String, at column: Int) {
            var index = max(0, column)
            while cells.count < index { cells.append(" ") }
            for c in text {
                if index >= cells.count { cells.append(c) } else { cells[index] = c }
                index += 1
            }
        }
        var text: String {
            var end = cells.count
            while end > 0, cells[end - 1] == " " { end -= 1 }
            return String(cells[..<end])
        }
    }
}

/// Draws a ``SequenceDiagram`` as a self-contained SVG document (no scripts, no external
/// fonts or images), for a browser, a bug report or `rsvg-convert -o wake.png`.
///
/// Layout: a title, one header box per lane with a dashed life line under it, then one row
/// per step: the time on the left, an arrow with its label above it, or a note box on its
/// lane. ``SequenceDiagram/Style/error`` steps are red (stroke, label in bold), muted ones grey;
/// the legend follows the last row.
public struct SequenceDiagramSVG: Sendable {
    public var laneWidth = 200
    public var rowHeight = 30
    public var leftMargin = 96
    public var fontSize = 12

    public init() {}

    static let red = "#c62828"
    static let redFill = "#fdecea"
    static let grey = "#9e9e9e"
    static let ink = "#212121"

    /// Average advance of a character at `fontSize` in the monospace face (for box sizes).
    private var charWidth: Double { Double(fontSize) * 0.62 }

    /// Lanes wide enough for the longest arrow label (200…440 px), then ``render(_:)``.
    public func renderFitting(_ diagram: SequenceDiagram) -> String {
        var layout = self
        var widest = 0.0
        for step in diagram.steps {
            if case .arrow(let from, let to) = step.mark, from != to {
                widest = max(widest, (Double(step.label.count) * charWidth + 40) / Double(abs(to - from)))
            }
        }
        for lane in diagram.lanes {
            widest = max(widest, Double(max(lane.title.count, lane.subtitle?.count ?? 0)) * charWidth + 40)
        }
        layout.laneWidth = min(440, max(laneWidth, Int(widest.rounded(.up))))
        return layout.render(diagram)
    }

    public func render(_ diagram: SequenceDiagram) -> String {
        let lanes = max(1, diagram.lanes.count)
        let titleWidth = Int(Double(diagram.title.count) * charWidth * 1.25) + 24
        let legendWidth = diagram.legend.map { Int(Double($0.text.count) * charWidth) + 24 }.max() ?? 0
        let width = max(leftMargin + lanes * laneWidth + 20, titleWidth, legendWidth)
        let headerTop = diagram.title.isEmpty ? 12 : 40
        let headerHeight = diagram.lanes.contains { $0.subtitle != nil } ? 40 : 28
        let firstRow = headerTop + headerHeight + 28
        let bottom = firstRow + diagram.steps.count * rowHeight
        let height = bottom + 16 + diagram.legend.count * (fontSize + 6) + 12
        var svg = """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" \
            viewBox="0 0 \(width) \(height)" font-family="DejaVu Sans Mono, monospace" font-size="\(fontSize)">
            <defs>
            <marker id="head" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" \
            orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="\(Self.ink)"/></marker>
            <marker id="head-error" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" \
            orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="\(Self.red)"/></marker>
            <marker id="head-muted" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" \
            orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="\(Self.grey)"/></marker>
            </defs>
            <rect x="0" y="0" width="\(width)" height="\(height)" fill="#ffffff"/>

            """
        if !diagram.title.isEmpty {
            svg += "<text x=\"12\" y=\"24\" font-size=\"\(fontSize + 3)\" font-weight=\"bold\" fill=\"\(Self.ink)\">"
                + Self.escape(diagram.title) + "</text>\n"
        }
        for (index, lane) in diagram.lanes.enumerated() {
            let x = centre(index)
            let boxWidth = laneWidth - 16
            svg += "<rect x=\"\(x - boxWidth / 2)\" y=\"\(headerTop)\" width=\"\(boxWidth)\" height=\"\(headerHeight)\" "
                + "rx=\"5\" fill=\"#e3f2fd\" stroke=\"#1565c0\"/>\n"
            svg += text(lane.title, x: x, y: headerTop + 18, anchor: "middle", weight: "bold", limit: boxWidth)
            if let subtitle = lane.subtitle {
                svg += text(subtitle, x: x, y: headerTop + 33, anchor: "middle", fill: "#455a64", limit: boxWidth)
            }
            svg += "<line x1=\"\(x)\" y1=\"\(headerTop + headerHeight)\" x2=\"\(x)\" y2=\"\(bottom)\" "
                + "stroke=\"#90a4ae\" stroke-dasharray=\"4,4\"/>\n"
        }
        for (row, step) in diagram.steps.enumerated() {
            svg += draw(step, y: firstRow + row * rowHeight, lanes: diagram.lanes.count)
        }
        for (index, note) in diagram.legend.enumerated() {
            let fill = note.style == .error ? Self.red : (note.style == .muted ? Self.grey : Self.ink)
            svg += text(note.text, x: 12, y: bottom + 24 + index * (fontSize + 6), fill: fill,
                        weight: note.style == .error ? "bold" : "normal")
        }
        return svg + "</svg>\n"
    }

    private func centre(_ lane: Int) -> Int { leftMargin + lane * laneWidth + laneWidth / 2 }

    private func draw(_ step: SequenceDiagram.Step, y: Int, lanes: Int) -> String {
        let colour = step.style == .error ? Self.red : (step.style == .muted ? Self.grey : Self.ink)
        let weight = step.style == .error ? "bold" : "normal"
        var out = text(step.time, x: 8, y: y + 4, fill: "#607d8b")
        if let number = step.number { out += text("#\(number)", x: leftMargin - 8, y: y + 4, anchor: "end", fill: "#607d8b") }
        switch step.mark {
        case .arrow(let from, let to) where from != to && (0..<lanes).contains(from) && (0..<lanes).contains(to):
            let x1 = centre(from), x2 = centre(to)
            let marker = step.style == .error ? "head-error" : (step.style == .muted ? "head-muted" : "head")
            out += "<line x1=\"\(x1)\" y1=\"\(y)\" x2=\"\(x2)\" y2=\"\(y)\" stroke=\"\(colour)\" stroke-width=\"1.5\" "
                + "marker-end=\"url(#\(marker))\"/>\n"
            out += text(step.label, x: (x1 + x2) / 2, y: y - 5, anchor: "middle", fill: colour, weight: weight,
                        limit: abs(x2 - x1) + laneWidth - 20)
        case .arrow(let lane, _), .note(let lane):
            // A note on a lane of the right half grows to the left, so it stays in the picture.
            let index = min(max(0, lane), max(0, lanes - 1))
            let x = centre(index)
            let leftward = lanes > 1 && index >= lanes / 2 && index > 0
            let room = leftward ? x - 12 : leftMargin + lanes * laneWidth - x
            let label = Self.clip(step.label, to: max(8, Int(Double(room - 16) / charWidth)))
            let boxWidth = Int(Double(label.count) * charWidth) + 12
            let fill = step.style == .error ? Self.redFill : "#fffde7"
            let stroke = step.style == .error ? Self.red : (step.style == .muted ? Self.grey : "#f9a825")
            let boxX = leftward ? x + 6 - boxWidth : x - 6
            out += "<rect x=\"\(boxX)\" y=\"\(y - 15)\" width=\"\(boxWidth)\" height=\"\(rowHeight - 8)\" rx=\"3\" "
                + "fill=\"\(fill)\" stroke=\"\(stroke)\"/>\n"
            out += text(label, x: leftward ? x : x, y: y, anchor: leftward ? "end" : "start", fill: colour, weight: weight)
        }
        return out
    }

    private func text(
        _ content: String, x: Int, y: Int, anchor: String = "start", fill: String = ink, weight: String = "normal",
        limit: Int? = nil
    ) -> String {
        let shown = limit.map { Self.clip(content, to: max(4, Int(Double($0) / charWidth))) } ?? content
        return "<text x=\"\(x)\" y=\"\(y)\" text-anchor=\"\(anchor)\" fill=\"\(fill)\" font-weight=\"\(weight)\">"
            + Self.escape(shown) + "</text>\n"
    }

    static func clip(_ text: String, to width: Int) -> String { LadderText.clip(text, to: width) }

    /// XML character data and attribute text: `&`, `<`, `>`, `"`; control characters (not
    /// allowed in XML 1.0) become spaces.
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default:
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) { out += " " } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}

/// A sequence diagram: lanes (the parties), and steps in time order — an arrow from one lane to
/// another, or a note on one lane. The one model behind every picture the tools draw: a SIP
/// call's ladder (like sngrep's call flow) and a push wake's timeline (phone, iOS, APNs,
/// gateway, Kamailio, caller). Rendered as terminal text by ``LadderText`` and as SVG by
/// ``SequenceDiagramSVG``.
public struct SequenceDiagram: Sendable, Hashable {
    /// How a step is drawn.
    public enum Style: String, Sendable, Hashable {
        case normal
        /// Something went wrong here (a rule broken, a call refused): red.
        case error
        /// Bookkeeping the reader can skip (a retransmission, an internal step): grey.
        case muted
    }

    /// One party.
    public struct Lane: Sendable, Hashable {
        public var title: String
        /// A second header line (an address, a role).
        public var subtitle: String?

        public init(_ title: String, subtitle: String? = nil) {
            self.title = title
            self.subtitle = subtitle
        }
    }

    /// What a step draws.
    public enum Mark: Sendable, Hashable {
        case arrow(from: Int, to: Int)
        case note(lane: Int)
    }

    /// One row of the diagram.
    public struct Step: Sendable, Hashable {
        /// The time column (`0.012`, `1950 ms`).
        public var time: String
        public var mark: Mark
        public var label: String
        public var style: Style
        /// A reference the reader can ask for (`#3`: message 3 in full).
        public var number: Int?

        public init(time: String, mark: Mark, label: String, style: Style = .normal, number: Int? = nil) {
            self.time = time
            self.mark = mark
            self.label = label
            self.style = style
            self.number = number
        }
    }

    /// A line under the diagram (what a red mark means, the verdict).
    public struct Note: Sendable, Hashable {
        public var text: String
        public var style: Style
        public init(_ text: String, style: Style = .normal) {
            self.text = text
            self.style = style
        }
    }

    public var title: String
    public var lanes: [Lane]
    public var steps: [Step]
    public var legend: [Note]

    public init(title: String, lanes: [Lane], steps: [Step] = [], legend: [Note] = []) {
        self.title = title
        self.lanes = lanes
        self.steps = steps
        self.legend = legend
    }
}

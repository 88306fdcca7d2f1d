/// One metric family — a name, its help text, a type — and its time series, one per label set,
/// kept in the order they were first written so the exposition is byte-stable.
///
/// The name is the family name of the OpenMetrics data model: a counter's is given without
/// `_total` (`sip_line_failures`), the renderer adds the suffix its format wants; an info's
/// without `_info`. Every mutation is one `mutating func`; the type is a value, so an exporter
/// keeps its families behind one lock or in one actor and renders a copy.
public struct MetricFamily: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// Monotonic, starts at 0; `sample name_total`.
        case counter
        /// Any value that goes up and down.
        case gauge
        /// Observations counted in buckets with these upper bounds (`le`), plus `+Inf`.
        case histogram(bounds: [Double])
        /// Constant text about the target as labels, value 1 (`name_info`; a gauge in text 0.0.4).
        case info
    }

    /// What one series holds.
    public enum Value: Sendable, Equatable {
        case number(Double)
        case histogram(Histogram)
    }

    public struct Series: Sendable, Equatable {
        public let labels: MetricLabels
        public internal(set) var value: Value
    }

    public let name: String
    public let help: String
    public let kind: Kind
    /// OpenMetrics `# UNIT` (e.g. `seconds`); the name must then end with `_` + unit.
    public let unit: String?
    public private(set) var series: [Series] = []
    private var index: [MetricLabels: Int] = [:]

    /// Traps on a name outside the data model, a unit the name does not end with, or a counter
    /// named with its `_total` — programming errors, names are constants.
    public init(name: String, help: String, kind: Kind, unit: String? = nil) {
        precondition(MetricFamily.isValidName(name), "invalid metric name \(name)")
        precondition(unit.map { name.hasSuffix("_" + $0) && MetricFamily.isValidName($0) } ?? true, "\(name) must end with its unit")
        precondition(kind != .counter || !name.hasSuffix("_total"), "a counter family is named without _total")
        precondition(kind != .info || !name.hasSuffix("_info"), "an info family is named without _info")
        self.name = name
        self.help = help
        self.kind = kind
        self.unit = unit
    }

    /// Adds `amount` (≥ 0) to a counter (creating the series at 0 first).
    public mutating func increment(_ labels: MetricLabels = [:], by amount: Double = 1) {
        precondition(kind == .counter, "\(name) is not a counter")
        guard amount >= 0 else { return }
        let i = slot(labels)
        if case .number(let v) = series[i].value { series[i].value = .number(v + amount) }
    }

    /// Creates the series of `labels` at its initial value (0, or an empty histogram) if it is
    /// absent, so a rate can be computed from the first event on (a counter series that
    /// appears at 1 hides its first increase from `increase()`).
    public mutating func touch(_ labels: MetricLabels) { _ = slot(labels) }

    /// Sets a gauge (or an info, whose value is 1 by definition).
    public mutating func set(_ labels: MetricLabels = [:], _ value: Double) {
        precondition(kind == .gauge || kind == .info, "\(name) is not a gauge")
        series[slot(labels)].value = .number(kind == .info ? 1 : value)
    }

    /// Records one observation in a histogram.
    public mutating func observe(_ labels: MetricLabels = [:], _ value: Double) {
        guard case .histogram = kind else { preconditionFailure("\(name) is not a histogram") }
        let i = slot(labels)
        if case .histogram(var h) = series[i].value {
            h.observe(value)
            series[i].value = .histogram(h)
        }
    }

    /// Drops the series of `labels` (a monitored line removed from the configuration).
    public mutating func remove(_ labels: MetricLabels) {
        guard let i = index.removeValue(forKey: labels) else { return }
        series.remove(at: i)
        for (key, position) in index where position > i { index[key] = position - 1 }
    }

    /// Drops every series whose labels match `predicate`.
    public mutating func removeAll(where predicate: (MetricLabels) -> Bool) {
        series.removeAll { predicate($0.labels) }
        index = Dictionary(uniqueKeysWithValues: series.enumerated().map { ($0.element.labels, $0.offset) })
    }

    /// A counter's or gauge's value, nil when the series does not exist.
    public func value(_ labels: MetricLabels = [:]) -> Double? {
        guard let i = index[labels], case .number(let v) = series[i].value else { return nil }
        return v
    }

    /// A histogram's state, nil when the series does not exist.
    public func histogram(_ labels: MetricLabels = [:]) -> Histogram? {
        guard let i = index[labels], case .histogram(let h) = series[i].value else { return nil }
        return h
    }

    private mutating func slot(_ labels: MetricLabels) -> Int {
        if let i = index[labels] { return i }
        let initial: Value
        switch kind {
        case .counter, .gauge: initial = .number(0)
        case .info: initial = .number(1)
        case .histogram(let bounds):
            precondition(labels["le"] == nil, "le is the histogram's own label")
            initial = .histogram(Histogram(bounds: bounds))
        }
        series.append(Series(labels: labels, value: initial))
        index[labels] = series.count - 1
        return series.count - 1
    }

    /// A metric name of the data model: `[a-zA-Z_:][a-zA-Z0-9_:]*`.
    public static func isValidName(_ name: String) -> Bool {
        guard let first = name.utf8.first else { return false }
        func start(_ c: UInt8) -> Bool { (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F || c == 0x3A }
        return start(first) && name.utf8.allSatisfy { start($0) || ($0 >= 0x30 && $0 <= 0x39) }
    }
}

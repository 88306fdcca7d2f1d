/// The families an exporter serves, in registration order, and their exposition.
///
/// A value: the exporter mutates it in place (``update(_:_:)``) behind its own lock or actor
/// and renders it on each scrape; nothing here does I/O or reads a clock. Rendering follows the
/// Prometheus text format 0.0.4 (`# HELP`, `# TYPE`, counters as `name_total`, info as a
/// gauge) or OpenMetrics 1.0 (`# TYPE`, `# UNIT`, `# HELP`, `_total` samples, `info`, and the
/// closing `# EOF`); histograms in both as cumulative `_bucket{le}` through `+Inf`, `_sum`,
/// `_count`.
public struct MetricSet: Sendable, Equatable {
    public private(set) var families: [MetricFamily] = []

    public init(_ families: [MetricFamily] = []) {
        for family in families { register(family) }
    }

    /// Adds `family`; a family of the same name is replaced (its series with it).
    public mutating func register(_ family: MetricFamily) {
        if let i = families.firstIndex(where: { $0.name == family.name }) { families[i] = family } else { families.append(family) }
    }

    public subscript(name: String) -> MetricFamily? { families.first { $0.name == name } }

    /// Runs `body` on family `name` in place (no copy of its series); nil when it is absent.
    @discardableResult
    public mutating func update<R>(_ name: String, _ body: (inout MetricFamily) throws -> R) rethrows -> R? {
        guard let i = families.firstIndex(where: { $0.name == name }) else { return nil }
        return try body(&families[i])
    }

    /// Drops the series matching `predicate` from every family (a target that went away).
    public mutating func removeSeries(where predicate: (MetricLabels) -> Bool) {
        for i in families.indices { families[i].removeAll(where: predicate) }
    }

    /// The exposition body in `format` (UTF-8 text, each line ending in `\n`).
    public func render(_ format: ExpositionFormat) -> String {
        var out = ""
        out.reserveCapacity(families.reduce(0) { total, family in
            guard case .histogram(let bounds) = family.kind else { return total + 96 + family.series.count * 96 }
            return total + 96 + family.series.count * (bounds.count + 3) * 112
        })
        for family in families { MetricSet.write(family, format, into: &out) }
        if format == .openMetrics { out += "# EOF\n" }
        return out
    }

    private static func write(_ family: MetricFamily, _ format: ExpositionFormat, into out: inout String) {
        let name = family.name
        let help = MetricText.help(family.help, format: format)
        let sampleName: String
        switch family.kind {
        case .counter: sampleName = name + "_total"
        case .info: sampleName = name + "_info"
        case .gauge, .histogram: sampleName = name
        }
        switch format {
        case .text:
            let typeName: String
            switch family.kind {
            case .counter: typeName = "counter"
            case .gauge, .info: typeName = "gauge"
            case .histogram: typeName = "histogram"
            }
            out += "# HELP \(sampleName) \(help)\n# TYPE \(sampleName) \(typeName)\n"
        case .openMetrics:
            let typeName: String
            switch family.kind {
            case .counter: typeName = "counter"
            case .gauge: typeName = "gauge"
            case .info: typeName = "info"
            case .histogram: typeName = "histogram"
            }
            let descriptorName = family.kind == .info ? sampleName : name
            out += "# TYPE \(descriptorName) \(typeName)\n"
            if let unit = family.unit { out += "# UNIT \(descriptorName) \(unit)\n" }
            out += "# HELP \(descriptorName) \(help)\n"
        }
        // A thousand lines are ~40,000 samples: each series' label text is escaped once and
        // each bucket bound formatted once per family, so a scrape is mostly appends.
        let bounds: [String]
        if case .histogram(let values) = family.kind {
            bounds = values.map { MetricText.bound($0, format: format) } + ["+Inf"]
        } else {
            bounds = []
        }
        for series in family.series {
            let labels = labelText(series.labels)
            switch series.value {
            case .number(let value):
                sample(sampleName, labels, MetricText.number(value), into: &out)
            case .histogram(let histogram):
                let cumulative = histogram.cumulative
                let open = labels.isEmpty ? "{le=\"" : "{" + labels + ",le=\""
                for (i, bound) in bounds.enumerated() {
                    out += name
                    out += "_bucket"
                    out += open
                    out += bound
                    out += "\"} "
                    out += String(cumulative[i])
                    out += "\n"
                }
                sample(name + "_sum", labels, MetricText.number(histogram.sum), into: &out)
                sample(name + "_count", labels, String(histogram.count), into: &out)
            }
        }
    }

    /// `a="1",b="2"`: the pairs in order, values escaped; empty for no labels.
    private static func labelText(_ labels: MetricLabels) -> String {
        var out = ""
        for (i, pair) in labels.pairs.enumerated() {
            if i > 0 { out += "," }
            out += pair.name
            out += "=\""
            out += MetricText.labelValue(pair.value)
            out += "\""
        }
        return out
    }

    private static func sample(_ name: String, _ labels: String, _ value: String, into out: inout String) {
        out += name
        if !labels.isEmpty {
            out += "{"
            out += labels
            out += "}"
        }
        out += " "
        out += value
        out += "\n"
    }
}

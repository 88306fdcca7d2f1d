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
        String(decoding: renderBytes(format), as: UTF8.self)
    }

    /// The exposition body in `format` as the UTF-8 bytes a response carries (no `String` in
    /// between: a thousand monitored lines are ~4 MB per scrape, see `ExpositionWriter`).
    public func renderBytes(_ format: ExpositionFormat) -> [UInt8] {
        var writer = ExpositionWriter(reserving: ExpositionWriter.estimate(families))
        for family in families { writer.write(family, format) }
        writer.end(format)
        return writer.bytes
    }
}

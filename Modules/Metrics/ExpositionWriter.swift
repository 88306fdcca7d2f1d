/// Writes a ``MetricSet``'s exposition as UTF-8 bytes into one buffer sized up front.
///
/// A monitor of a thousand lines serves ~40,000 samples (~4 MB) per scrape; building that as a
/// `String` of interpolations costs an allocation per number and a copy into the response. Here
/// each series' label text is escaped once per scrape into one reused scratch buffer (kept out
/// of the series, so a thousand lines do not hold a second copy of every label set), each
/// family's sample names and bucket bounds are formatted once per scrape, and integers are
/// written digit by digit: a scrape is appends into one array.
/// The bytes are the same as the text rules of ``MetricText`` give (the tests compare them).
struct ExpositionWriter {
    private(set) var bytes: [UInt8] = []

    init(reserving capacity: Int) { bytes.reserveCapacity(capacity) }

    /// An estimate of a set's body size, so the buffer is allocated once.
    static func estimate(_ families: [MetricFamily]) -> Int {
        families.reduce(64) { total, family in
            let perSeries: Int
            if case .histogram(let bounds) = family.kind {
                perSeries = (bounds.count + 3) * (family.name.utf8.count + 88)
            } else {
                perSeries = family.name.utf8.count + 88
            }
            return total + 256 + family.series.count * perSeries
        }
    }

    mutating func write(_ family: MetricFamily, _ format: ExpositionFormat) {
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
            append("# HELP \(sampleName) \(help)\n# TYPE \(sampleName) \(typeName)\n")
        case .openMetrics:
            let typeName: String
            switch family.kind {
            case .counter: typeName = "counter"
            case .gauge: typeName = "gauge"
            case .info: typeName = "info"
            case .histogram: typeName = "histogram"
            }
            let descriptorName = family.kind == .info ? sampleName : name
            append("# TYPE \(descriptorName) \(typeName)\n")
            if let unit = family.unit { append("# UNIT \(descriptorName) \(unit)\n") }
            append("# HELP \(descriptorName) \(help)\n")
        }
        var labels: [UInt8] = []
        labels.reserveCapacity(256)
        guard case .histogram(let values) = family.kind else {
            let prefix = Array(sampleName.utf8)
            for series in family.series {
                guard case .number(let value) = series.value else { continue }
                Self.labelText(series.labels, into: &labels)
                sample(prefix, labels, value)
            }
            return
        }
        // `name_bucket{` and `le="bound"} ` once per family; per bucket only the series' labels
        // and the count are written.
        let bucket = Array((name + "_bucket{").utf8)
        let bounds = (values.map { MetricText.bound($0, format: format) } + ["+Inf"]).map { Array("le=\"\($0)\"} ".utf8) }
        let sum = Array((name + "_sum").utf8)
        let count = Array((name + "_count").utf8)
        for series in family.series {
            guard case .histogram(let histogram) = series.value else { continue }
            Self.labelText(series.labels, into: &labels)
            var running: UInt64 = 0
            for (i, bound) in bounds.enumerated() {
                running = i < histogram.counts.count ? running + histogram.counts[i] : histogram.count
                bytes += bucket
                if !labels.isEmpty {
                    bytes += labels
                    bytes.append(0x2C)  // ,
                }
                bytes += bound
                decimal(running)
                bytes.append(0x0A)
            }
            sample(sum, labels, histogram.sum)
            sample(count, labels, count: histogram.count)
        }
    }

    /// `# EOF` of OpenMetrics.
    mutating func end(_ format: ExpositionFormat) {
        if format == .openMetrics { append("# EOF\n") }
    }

    /// `name{labels} value\n` (no braces without labels).
    private mutating func sample(_ name: [UInt8], _ labels: [UInt8], _ value: Double) {
        bytes += name
        if !labels.isEmpty {
            bytes.append(0x7B)  // {
            bytes += labels
            bytes.append(0x7D)  // }
        }
        bytes.append(0x20)
        number(value)
        bytes.append(0x0A)
    }

    /// `name{labels} count\n`: an observation count, exact past 2^53 too.
    private mutating func sample(_ name: [UInt8], _ labels: [UInt8], count: UInt64) {
        bytes += name
        if !labels.isEmpty {
            bytes.append(0x7B)
            bytes += labels
            bytes.append(0x7D)
        }
        bytes.append(0x20)
        decimal(count)
        bytes.append(0x0A)
    }

    /// ``MetricText/number(_:)`` without a `String` for the integral values (nearly all of them).
    private mutating func number(_ value: Double) {
        if value.isFinite, value == value.rounded(), abs(value) < 9_007_199_254_740_992 {
            if value < 0 { bytes.append(0x2D) }  // -
            decimal(UInt64(abs(value)))
        } else {
            append(MetricText.number(value))
        }
    }

    /// The decimal digits of `value`, written in place (no intermediate `String`).
    private mutating func decimal(_ value: UInt64) {
        var width = 1
        var rest = value / 10
        while rest > 0 {
            width += 1
            rest /= 10
        }
        bytes.append(contentsOf: repeatElement(0x30, count: width))
        var n = value
        var i = bytes.count
        repeat {
            i -= 1
            bytes[i] = 0x30 + UInt8(n % 10)
            n /= 10
        } while n > 0
    }

    private mutating func append(_ text: String) { bytes += text.utf8 }

    /// `a="1",b="2"`: a series' label pairs in order, values escaped (``MetricText/labelValue(_:)``).
    static func labelText(_ labels: MetricLabels, into out: inout [UInt8]) {
        out.removeAll(keepingCapacity: true)
        for (i, pair) in labels.pairs.enumerated() {
            if i > 0 { out.append(0x2C) }
            out += pair.name.utf8
            out += "=\"".utf8
            out += MetricText.labelValue(pair.value).utf8
            out.append(0x22)
        }
    }
}

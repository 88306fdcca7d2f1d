/// Conversions from numbers that came from outside (a flag, a JSON field) that never trap:
/// `Duration.seconds(1e300)` and `Int(1e300 * 1000)` do.
extension Duration {
    /// The longest duration a number from outside may become: 100 years. Tools bound their
    /// inputs far below this (their spec's ranges); this only keeps the conversion total.
    public static let checkedLimit = Duration.seconds(100 * 365 * 86_400)

    /// `seconds` rounded to the microsecond, or nil when it is NaN, infinite, negative or
    /// beyond ``checkedLimit``.
    public init?(checkedSeconds seconds: Double) {
        guard seconds.isFinite, seconds >= 0, seconds <= 100 * 365 * 86_400 else { return nil }
        self = .microseconds(Int64((seconds * 1_000_000).rounded()))
    }

    /// `milliseconds`, or nil when negative or beyond ``checkedLimit``.
    public init?<I: BinaryInteger>(checkedMilliseconds milliseconds: I) {
        guard milliseconds >= 0, milliseconds <= 100 * 365 * 86_400 * 1_000 else { return nil }
        self = .milliseconds(Int64(milliseconds))
    }

    /// Whole milliseconds, rounded down; saturates instead of trapping.
    public var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        if overflow { return seconds < 0 ? .min : .max }
        return product.addingReportingOverflow(attoseconds / 1_000_000_000_000_000).overflow
            ? .max : product + attoseconds / 1_000_000_000_000_000
    }
}

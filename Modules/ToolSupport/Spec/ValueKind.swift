/// The type of an option's or argument's value, with its bounds; the parser validates values
/// against it, so help, the manual and the range property test read the same bounds.
///
/// Every number has a range: a value outside it, NaN, infinity or a non-integral value where an
/// integer is meant is a usage error (exit 64) naming the option, before any conversion can trap.
public enum ValueKind: Sendable, Equatable {
    /// Any text.
    case string
    /// A decimal integer within the range.
    case int(ClosedRange<Int>)
    /// A decimal integer within an unsigned 64-bit range: seeds, whose printed values span all
    /// of `UInt64` (a range of `Int` would refuse half of them).
    case unsigned(ClosedRange<UInt64>)
    /// A finite decimal number within the range.
    case double(ClosedRange<Double>)
    /// One of a fixed list, matched case-insensitively and stored in the listed spelling.
    case choice([String])
    /// A rate, `N` or `N/s` (events per second, like sipp's `-r`), a finite number within the
    /// range; stored as the number.
    case perSecond(ClosedRange<Double>)

    /// A TCP/UDP port, 1…65535.
    public static let port = ValueKind.int(1...65535)
    /// A port to listen on, 0 (any free port) …65535.
    public static let listenPort = ValueKind.int(0...65535)
    /// A duration in seconds: at least 1 ms, at most `max` (a day by default).
    public static func seconds(max: Double = 86_400) -> ValueKind { .double(0.001...max) }
    /// A delay in seconds that may be zero, at most `max` (a day by default).
    public static func delay(max: Double = 86_400) -> ValueKind { .double(0...max) }
    /// Whole milliseconds, `range` (an hour at most by default).
    public static func milliseconds(_ range: ClosedRange<Int> = 0...3_600_000) -> ValueKind { .int(range) }

    /// The `(values: …)` hint for help text, if any.
    var choicesText: String? {
        if case .choice(let values) = self { return values.joined(separator: ", ") }
        return nil
    }

    /// The `(range: …)` hint for help text, if any.
    var rangeText: String? {
        switch self {
        case .int(let range): "\(range.lowerBound)…\(range.upperBound)"
        case .unsigned(let range): "\(range.lowerBound)…\(range.upperBound)"
        case .double(let range): "\(Self.text(range.lowerBound))…\(Self.text(range.upperBound))"
        case .perSecond(let range): "\(Self.text(range.lowerBound))…\(Self.text(range.upperBound))/s"
        default: nil
        }
    }

    /// `0.001`, `10`, `86400`: the shortest spelling of a bound.
    static func text(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        return String(value)
    }

    /// Validates `raw`; returns the stored form or a reason (without the option name).
    func validate(_ raw: String) -> Result<String, ValueError> {
        switch self {
        case .string:
            return .success(raw)
        case .int(let range):
            guard let value = Int(raw) else {
                if let number = Double(raw), number.isFinite, number == number.rounded(),
                    !range.contains(Int(exactly: number) ?? (number < 0 ? Int.min : Int.max))
                {
                    return .failure(ValueError("\(raw) is out of range \(rangeText ?? "")"))
                }
                return .failure(ValueError("expected an integer in \(rangeText ?? ""), got '\(raw)'"))
            }
            guard range.contains(value) else { return .failure(ValueError("\(raw) is out of range \(rangeText ?? "")")) }
            return .success(String(value))
        case .unsigned(let range):
            guard let value = UInt64(raw) else {
                let digits = raw.hasPrefix("-") ? raw.dropFirst() : Substring(raw)
                if !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber) {
                    return .failure(ValueError("\(raw) is out of range \(rangeText ?? "")"))
                }
                return .failure(ValueError("expected an integer in \(rangeText ?? ""), got '\(raw)'"))
            }
            guard range.contains(value) else { return .failure(ValueError("\(raw) is out of range \(rangeText ?? "")")) }
            return .success(String(value))
        case .double(let range):
            guard let value = Double(raw), value.isFinite else {
                return .failure(ValueError("expected a number in \(rangeText ?? ""), got '\(raw)'"))
            }
            guard range.contains(value) else { return .failure(ValueError("\(raw) is out of range \(rangeText ?? "")")) }
            return .success(raw)
        case .perSecond(let range):
            let number = raw.lowercased().hasSuffix("/s") ? String(raw.dropLast(2)) : raw
            guard let value = Double(number), value.isFinite else {
                return .failure(ValueError("expected N or N/s in \(rangeText ?? ""), got '\(raw)'"))
            }
            guard range.contains(value) else { return .failure(ValueError("\(raw) is out of range \(rangeText ?? "")")) }
            return .success(number)
        case .choice(let values):
            if let match = values.first(where: { $0.lowercased() == raw.lowercased() }) { return .success(match) }
            return .failure(ValueError("expected one of \(values.joined(separator: ", ")), got '\(raw)'"))
        }
    }
}

/// Why a value did not fit its ``ValueKind``.
struct ValueError: Error {
    var reason: String
    init(_ reason: String) { self.reason = reason }
}

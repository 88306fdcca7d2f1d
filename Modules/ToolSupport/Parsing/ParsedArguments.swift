import SIPCore

/// The result of parsing a command line against a ``CommandSpec``: which command, and its values.
///
/// Values are stored under an option's ``OptionSpec/key`` (its long name) or an argument's name.
/// Values were validated while parsing, so the typed accessors only return `nil` when absent.
public struct ParsedArguments: Sendable {
    /// The subcommand path below the root (`[]` for the root, `["dial"]`).
    public var commandPath: [String]
    /// The spec of the selected command.
    public var spec: CommandSpec
    /// Explicitly given values by key, in command-line order. Flags and counters store one
    /// empty string per occurrence.
    public var values: [String: [String]]

    public init(commandPath: [String], spec: CommandSpec, values: [String: [String]]) {
        self.commandPath = commandPath
        self.spec = spec
        self.values = values
    }

    /// Whether the option or argument was given on the command line (defaults do not count).
    public func wasGiven(_ key: String) -> Bool { values[key] != nil }

    /// Whether a flag was given.
    public func flag(_ key: String) -> Bool { values[key] != nil }

    /// How many times a flag or counter was given (`-vv` → 2).
    public func count(_ key: String) -> Int { values[key]?.count ?? 0 }

    /// Every value given for a repeatable option or a variadic argument.
    public func strings(_ key: String) -> [String] {
        if let given = values[key] { return given }
        return defaultValue(key).map { [$0] } ?? []
    }

    /// The (last) value given, else the declared default.
    public func string(_ key: String) -> String? { values[key]?.last ?? defaultValue(key) }

    /// An `.int` value (given or default).
    public func int(_ key: String) -> Int? { string(key).flatMap { Int($0) } }

    /// An `.unsigned` value (given or default).
    public func unsigned(_ key: String) -> UInt64? { string(key).flatMap { UInt64($0) } }

    /// A `.double` value (given or default).
    public func double(_ key: String) -> Double? { string(key).flatMap { Double($0) } }

    /// A `.double` value in seconds (given or default) as a `Duration`, rounded to the
    /// microsecond. The spec's range keeps it small; the conversion is checked all the same.
    public func duration(_ key: String) -> Duration? { double(key).flatMap { Duration(checkedSeconds: $0) } }

    /// A `.choice` value mapped to an enum whose raw values are the choices.
    public func choice<T: RawRepresentable>(_ key: String, as type: T.Type = T.self) -> T? where T.RawValue == String {
        string(key).flatMap { T(rawValue: $0) }
    }

    private func defaultValue(_ key: String) -> String? {
        spec.options.first { $0.key == key }?.defaultValue
    }
}

/// One positional argument.
public struct ArgumentSpec: Sendable {
    /// How many values the argument takes.
    public enum Arity: Sendable, Equatable {
        case required
        case optional
        case zeroOrMore
        case oneOrMore
    }

    /// The key in ``ParsedArguments`` and the help placeholder (`target` → `<target>`).
    public var name: String
    public var kind: ValueKind
    public var arity: Arity
    public var help: String

    public init(_ name: String, kind: ValueKind = .string, arity: Arity = .required, help: String) {
        self.name = name
        self.kind = kind
        self.arity = arity
        self.help = help
    }

    /// The least number of values the argument needs.
    var minimumCount: Int {
        switch arity {
        case .required, .oneOrMore: 1
        case .optional, .zeroOrMore: 0
        }
    }

    /// Whether it takes more than one value.
    var isVariadic: Bool { arity == .zeroOrMore || arity == .oneOrMore }

    /// `<target>`, `[<aor>]`, `<file> ...`, `[<file> ...]` for the usage line.
    var usageText: String {
        switch arity {
        case .required: "<\(name)>"
        case .optional: "[<\(name)>]"
        case .oneOrMore: "<\(name)> ..."
        case .zeroOrMore: "[<\(name)> ...]"
        }
    }
}

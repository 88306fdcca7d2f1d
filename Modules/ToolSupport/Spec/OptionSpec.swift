/// One command-line option: `--long`, `-s`, or both.
///
/// Build them with ``flag(_:short:help:hidden:)``, ``counter(_:short:help:)`` and
/// ``value(_:short:valueName:kind:default:repeating:help:hidden:)``.
public struct OptionSpec: Sendable {
    /// How the option consumes the command line.
    public enum Kind: Sendable, Equatable {
        /// Present or absent (`--keep`).
        case flag
        /// Counted each time it appears (`-v`, `-vv`, `-v -v`).
        case counter
        /// Takes a value (`--name value`, `--name=value`, `-o value`, `-ovalue`).
        case value(ValueKind)
        /// Present or absent, with an optional attached value (`--sip-trace`,
        /// `--sip-trace=ladder`); the bare form stores an empty value.
        case optionalValue(ValueKind)
    }

    /// The long name without dashes (`output`), if any.
    public var long: String?
    /// The short name without the dash (`o`), if any.
    public var short: Character?
    public var kind: Kind
    /// The value placeholder shown in help (`file` → `<file>`).
    public var valueName: String
    public var help: String
    /// The value used when the option is absent; shown as `(default: …)`.
    public var defaultValue: String?
    /// Whether every occurrence is kept (otherwise the last one wins).
    public var isRepeatable: Bool
    /// Hidden from help and manual (`--generate-manual`).
    public var isHidden: Bool

    public init(
        long: String?, short: Character?, kind: Kind, valueName: String = "value", help: String,
        defaultValue: String? = nil, isRepeatable: Bool = false, isHidden: Bool = false
    ) {
        precondition(long != nil || short != nil, "an option needs a long or a short name")
        self.long = long
        self.short = short
        self.kind = kind
        self.valueName = valueName
        self.help = help
        self.defaultValue = defaultValue
        self.isRepeatable = isRepeatable
        self.isHidden = isHidden
    }

    /// The key values are stored under in ``ParsedArguments``: the long name, else the short one.
    public var key: String { long ?? String(short!) }

    /// Whether the option takes a value.
    public var takesValue: Bool {
        if case .value = kind { return true }
        return false
    }

    /// A flag: `--keep`.
    public static func flag(_ long: String?, short: Character? = nil, help: String, hidden: Bool = false) -> OptionSpec
    {
        OptionSpec(long: long, short: short, kind: .flag, help: help, isHidden: hidden)
    }

    /// A counted flag: `-v`, `-vv`.
    public static func counter(_ long: String?, short: Character? = nil, help: String) -> OptionSpec {
        OptionSpec(long: long, short: short, kind: .counter, help: help)
    }

    /// A flag that may carry an attached value: `--sip-trace` or `--sip-trace=ladder`.
    public static func optionalValue(
        _ long: String, valueName: String, kind: ValueKind, help: String
    ) -> OptionSpec {
        OptionSpec(long: long, short: nil, kind: .optionalValue(kind), valueName: valueName, help: help)
    }

    /// An option with a typed value.
    public static func value(
        _ long: String?, short: Character? = nil, valueName: String, kind: ValueKind = .string,
        default defaultValue: String? = nil, repeating: Bool = false, help: String, hidden: Bool = false
    ) -> OptionSpec {
        OptionSpec(
            long: long, short: short, kind: .value(kind), valueName: valueName, help: help,
            defaultValue: defaultValue, isRepeatable: repeating, isHidden: hidden)
    }
}

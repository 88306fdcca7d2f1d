/// The declarative definition of a tool or one of its subcommands.
///
/// `--help`, the man page and the Markdown page are all generated from it, and
/// ``CommandLineParser`` parses against it, so they cannot disagree.
public struct CommandSpec: Sendable {
    /// The command's name: the tool name for the root (`astra-qr`), else the subcommand (`encode`).
    public var name: String
    /// One line: the OVERVIEW in help, the NAME line in the manual.
    public var abstract: String
    /// More paragraphs after the overview, if any.
    public var discussion: String?
    public var arguments: [ArgumentSpec]
    public var options: [OptionSpec]
    public var subcommands: [CommandSpec]
    public var examples: [Example]
    /// Exit statuses (root command only), for the manual and `docs/tools.md`.
    public var exitStatuses: [ExitStatusDoc]
    /// Related manual pages (`astra-call(1)`).
    public var seeAlso: [String]
    /// Root only: the flag that makes the tool a monitoring plugin (`--nagios`), whose errors
    /// are then status lines (UNKNOWN 3 for usage) rather than the tool's exit codes.
    public var monitoring: MonitoringPlugin?

    public init(
        name: String, abstract: String, discussion: String? = nil, arguments: [ArgumentSpec] = [],
        options: [OptionSpec] = [], subcommands: [CommandSpec] = [], examples: [Example] = [],
        exitStatuses: [ExitStatusDoc] = [], seeAlso: [String] = [], monitoring: MonitoringPlugin? = nil
    ) {
        self.monitoring = monitoring
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.arguments = arguments
        self.options = options
        self.subcommands = subcommands
        self.examples = examples
        self.exitStatuses = exitStatuses
        self.seeAlso = seeAlso
    }

    /// The subcommand named `name`, if any.
    public func subcommand(_ name: String) -> CommandSpec? { subcommands.first { $0.name == name } }

    /// The command at `path` below this one (`["dial"]`), if every step exists.
    public func command(at path: [String]) -> CommandSpec? {
        var current = self
        for name in path {
            guard let next = current.subcommand(name) else { return nil }
            current = next
        }
        return current
    }

    /// The options shown in help: the declared ones plus `--version` (root) and `-h, --help`.
    func visibleOptions(isRoot: Bool) -> [OptionSpec] {
        var all = options.filter { !$0.isHidden }
        if isRoot { all.append(BuiltinOptions.version) }
        all.append(BuiltinOptions.help)
        return all
    }
}

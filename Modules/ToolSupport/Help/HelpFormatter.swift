/// Renders `--help` in swift-argument-parser's layout: OVERVIEW, USAGE, ARGUMENTS, OPTIONS,
/// SUBCOMMANDS, then EXAMPLES at the end.
public struct HelpFormatter: Sendable {
    /// The column where help text starts (labels are indented by 2).
    static let labelColumn = 26
    public var width: Int

    public init(width: Int = 80) { self.width = width }

    /// The help text for the command at `path` below `root`, ending with a newline.
    public func help(for root: CommandSpec, path: [String] = []) -> String {
        guard let command = root.command(at: path) else { return help(for: root) }
        let fullName = ([root.name] + path).joined(separator: " ")
        var sections: [String] = []
        var overview = TextWrapper.wrap("OVERVIEW: " + command.abstract, width: width, indent: 0)
        if let discussion = command.discussion {
            overview +=
                "\n\n"
                + discussion.split(separator: "\n\n", omittingEmptySubsequences: false)
                .map { TextWrapper.wrap(String($0), width: width, indent: 0) }.joined(separator: "\n\n")
        }
        sections.append(overview)
        sections.append(TextWrapper.wrap("USAGE: " + Self.usage(fullName, command), width: width, indent: 7))
        if !command.arguments.isEmpty {
            sections.append(
                "ARGUMENTS:\n" + command.arguments.map { row("<\($0.name)>", $0.help) }.joined(separator: "\n"))
        }
        let options = command.visibleOptions(isRoot: path.isEmpty)
        sections.append("OPTIONS:\n" + options.map { row($0.helpLabel, $0.helpText) }.joined(separator: "\n"))
        if !command.subcommands.isEmpty {
            sections.append(
                "SUBCOMMANDS:\n" + command.subcommands.map { row($0.name, $0.abstract) }.joined(separator: "\n")
                    + "\n\n  See '\(root.name) help <subcommand>' for detailed help.")
        }
        if !command.examples.isEmpty {
            sections.append(
                "EXAMPLES:\n"
                    + command.examples.map {
                        "  " + TextWrapper.wrap($0.title, width: width, indent: 2) + "\n    " + $0.command
                    }.joined(separator: "\n\n"))
        }
        return sections.joined(separator: "\n\n") + "\n"
    }

    /// `astra-qr encode [<options>] <file> ...` or `astra-call <subcommand>`.
    static func usage(_ fullName: String, _ command: CommandSpec) -> String {
        var parts = [fullName]
        if command.options.contains(where: { !$0.isHidden }) { parts.append("[<options>]") }
        if !command.subcommands.isEmpty { parts.append("<subcommand>") }
        parts += command.arguments.map(\.usageText)
        return parts.joined(separator: " ")
    }

    /// `  label                   help…`, with the help on the next line when the label is long.
    private func row(_ label: String, _ help: String) -> String {
        let lead = "  " + label
        let wrapped = TextWrapper.wrap(help, width: width, indent: Self.labelColumn, firstColumn: Self.labelColumn)
        if lead.count + 2 > Self.labelColumn {
            return lead + "\n" + String(repeating: " ", count: Self.labelColumn) + wrapped
        }
        return lead + String(repeating: " ", count: Self.labelColumn - lead.count) + wrapped
    }
}

/// What a command line asks for.
public enum ParseOutcome: Sendable {
    /// Run the selected command.
    case run(ParsedArguments)
    /// Print help for the command at this path (`--help`, `-h`, `help <subcommand>`).
    case help(commandPath: [String])
    /// Print `<tool> <version>`.
    case version
    /// Print the manual page (hidden `--generate-manual[=troff|markdown]`).
    case manual(ManualFormat)
    /// Print a shell completion script (hidden `--generate-completion=bash|zsh`).
    case completion(CompletionShell)
}

/// The formats of the generated manual.
public enum ManualFormat: String, Sendable, CaseIterable {
    /// troff `man(7)` source, section 1.
    case troff
    /// Markdown for `docs/man/<tool>.md`.
    case markdown
}

/// Machine output (JSON Lines) or human text.
public enum OutputFormat: String, Sendable, CaseIterable {
    case json
    case text

    /// `--json` wins, then `--format text|json`, else text on a terminal and JSON when piped.
    public static func resolve(_ arguments: ParsedArguments, stdoutIsTerminal: Bool) -> OutputFormat {
        if arguments.flag(CommonOptions.Key.json) { return .json }
        if let chosen = arguments.values[CommonOptions.Key.format]?.last, let format = OutputFormat(rawValue: chosen) {
            return format
        }
        return stdoutIsTerminal ? .text : .json
    }
}

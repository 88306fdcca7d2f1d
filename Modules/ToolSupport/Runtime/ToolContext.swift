/// Everything a tool's body needs: the parsed command line, stdout events, stderr diagnostics.
public struct ToolContext: Sendable {
    /// The tool's name (`astra-qr`).
    public let tool: String
    public let arguments: ParsedArguments
    /// JSON Lines or text on standard output.
    public let output: EventWriter
    /// `<tool>: …` lines on standard error, filtered by `-v`/`-vv`, redacted.
    public let diagnostics: Diagnostics

    public init(tool: String, arguments: ParsedArguments, output: EventWriter, diagnostics: Diagnostics) {
        self.tool = tool
        self.arguments = arguments
        self.output = output
        self.diagnostics = diagnostics
    }

    /// The selected subcommand (`encode`), or `nil` for a tool without subcommands.
    public var subcommand: String? { arguments.commandPath.last }
}

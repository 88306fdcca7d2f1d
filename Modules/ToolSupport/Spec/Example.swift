/// A usage example shown at the end of `--help` and in the manual's EXAMPLES section.
public struct Example: Sendable {
    /// What the example does, one line.
    public var title: String
    /// The command line, starting with the tool name.
    public var command: String

    public init(_ title: String, _ command: String) {
        self.title = title
        self.command = command
    }
}

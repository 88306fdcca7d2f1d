import Testing

/// One golden run of a built tool: arguments in; exit status, stdout and stderr out.
struct GoldenCase: CustomTestStringConvertible, Sendable {
    /// Expected standard output.
    enum Stdout: Sendable {
        /// Exactly this text.
        case exact(String)
        /// The contents of `Tests/ToolsTests/Golden/<name>` (rewritten with UPDATE_GOLDEN=1).
        case golden(String)
        /// The committed `docs/man/<name>` (kept in sync by scripts/gen-man.sh).
        case doc(String)
    }

    var tool: String
    var arguments: [String]
    var status: Int32
    var stdout: Stdout
    var stderr: String

    var testDescription: String { ([tool] + arguments).joined(separator: " ") }
}

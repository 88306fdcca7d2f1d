/// One documented exit status, for the manual's EXIT STATUS section and `docs/tools.md`.
public struct ExitStatusDoc: Sendable {
    public var code: ExitCode
    public var meaning: String

    public init(_ code: ExitCode, _ meaning: String) {
        self.code = code
        self.meaning = meaning
    }
}

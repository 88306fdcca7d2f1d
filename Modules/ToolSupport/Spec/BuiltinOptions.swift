/// Options every command understands without declaring them.
enum BuiltinOptions {
    static let help = OptionSpec.flag("help", short: "h", help: "Show help information.")
    static let version = OptionSpec.flag("version", help: "Show the version.")
    /// Hidden: prints the troff man page (`--generate-manual`) or Markdown (`--generate-manual=markdown`).
    static let generateManual = "--generate-manual"
    /// Hidden: prints the bash or zsh completion script (`--generate-completion=bash|zsh`).
    static let generateCompletion = "--generate-completion="
}

import ToolSupport

/// Small specs that pin the parser and help layout independently of the real tools.
enum DemoSpecs {
    static let flat = CommandSpec(
        name: "demo",
        abstract: "A demo tool.",
        arguments: [ArgumentSpec("file", arity: .zeroOrMore, help: "Input files.")],
        options: [
            .flag("keep", short: "k", help: "Keep going."),
            .counter("verbose", short: "v", help: "More output."),
            .value("output", short: "o", valueName: "file", help: "Output file."),
            .value(
                "type", short: "t", valueName: "type", kind: .choice(["PNG", "SVG"]), default: "PNG", help: "Type."),
            .value("count", short: "c", valueName: "n", kind: .int(-1_000...1_000), help: "How many."),
            .value("rate", valueName: "x", kind: .double(-100...100), help: "Rate."),
            .value("header", short: "H", valueName: "h", repeating: true, help: "A header."),
            .flag("secret-flag", help: "Hidden.", hidden: true),
        ])

    static let nested = CommandSpec(
        name: "demo",
        abstract: "A demo tool with subcommands.",
        subcommands: [
            CommandSpec(
                name: "dial", abstract: "Dial a target.",
                arguments: [
                    ArgumentSpec("target", help: "Who to call."),
                    ArgumentSpec("extra", arity: .optional, help: "Optional extra."),
                ],
                options: [.value("duration", valueName: "seconds", kind: .seconds(), help: "How long.")]
                    + CommonOptions.output + CommonOptions.diagnostics(sipTrace: true),
                examples: [Example("Call Bob:", "demo dial sip:bob@example.com")]),
            CommandSpec(
                name: "decode", abstract: "Decode files.",
                arguments: [ArgumentSpec("file", arity: .oneOrMore, help: "Images.")]),
        ],
        examples: [Example("Call Bob for ten seconds:", "demo dial --duration 10 sip:bob@example.com")])
}

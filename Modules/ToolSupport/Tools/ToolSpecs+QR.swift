extension ToolSpecs {
    /// `astra-qr`: make and read provisioning codes (qrencode/zbarimg conventions).
    public static let qr = CommandSpec(
        name: "astra-qr",
        abstract: "Make and read line provisioning QR codes.",
        subcommands: [
            CommandSpec(
                name: "encode",
                abstract: "Encode a line as a QR code.",
                discussion:
                    "The line comes from flags, then --line FILE, then standard input when it is not a terminal.",
                options: CommonOptions.line + [
                    .value(
                        "output", short: "o", valueName: "file",
                        help: "Write the image to this file ('-' = standard output)."),
                    .value(
                        "type", short: "t", valueName: "type",
                        kind: .choice(["PNG", "SVG", "ANSI", "UTF8", "ASCII", "PGM"]), default: "PNG",
                        help: "Image type."),
                    .value(
                        "level", short: "l", valueName: "level", kind: .choice(["L", "M", "Q", "H"]), default: "L",
                        help: "Error correction level."),
                    .value(
                        "size", short: "s", valueName: "pixels", kind: .int, default: "3",
                        help: "Module size in pixels."),
                    .value(
                        "margin", short: "m", valueName: "modules", kind: .int, default: "4",
                        help: "Margin width in modules."),
                ] + CommonOptions.diagnostics(sipTrace: false),
                examples: [
                    Example("Encode a line file as PNG:", "astra-qr encode --line line.json -o line.png"),
                    Example(
                        "Show a code in the terminal:",
                        "astra-qr encode --user alice --domain pbx.example.com -t UTF8 -o -"),
                ]),
            CommandSpec(
                name: "decode",
                abstract: "Read QR codes from images and print one line JSON per code.",
                arguments: [
                    ArgumentSpec("file", arity: .oneOrMore, help: "Image files (PNG, PGM; '-' = standard input).")
                ],
                options: [
                    .flag("raw", help: "Print the payload text only, one per line (like zbarimg --raw).")
                ] + CommonOptions.output + CommonOptions.diagnostics(sipTrace: false),
                examples: [
                    Example("Decode and verify a line:", "astra-qr decode line.png | astra-register")
                ]),
            CommandSpec(
                name: "lines",
                abstract: "Fetch lines from the platform API as JSON Lines.",
                options: [
                    .value("api", valueName: "url", help: "Base URL of the platform API."),
                    .value("token-file", valueName: "file", help: "Read the API bearer token from a file."),
                ] + CommonOptions.output + CommonOptions.diagnostics(sipTrace: false),
                examples: [
                    Example(
                        "Make a code for every line:",
                        "astra-qr lines --api https://api.example.com | astra-qr encode -o line.png")
                ]),
        ],
        exitStatuses: [
            ExitStatusDoc(.success, "Done; for decode, every image had a code."),
            ExitStatusDoc(.failure, "A code was found but is not a valid line."),
            ExitStatusDoc(.network, "lines: network error or timeout."),
            ExitStatusDoc(.noCodeFound, "decode: no code found in an image."),
            usageStatus, softwareStatus,
        ],
        seeAlso: seeAlso(except: "astra-qr") + ["qrencode(1)", "zbarimg(1)"])
}

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
                    "The line comes from flags, then --line FILE, then standard input when it is not a terminal. "
                    + "The code holds the compact astra1: payload (docs/provisioning.md). A password in clear "
                    + "draws a warning: seal it with --passphrase or --key-file.",
                arguments: [CommonOptions.addressOfRecord()],
                options: CommonOptions.line + [
                    .value(
                        "output", short: "o", valueName: "file",
                        help: "Write the image to this file ('-' = standard output, the default)."),
                    .value(
                        "type", short: "t", valueName: "type",
                        kind: .choice(["PNG", "SVG", "ANSI", "UTF8", "ASCII", "PGM"]),
                        help: "Image type; PNG, or UTF8 when writing to a terminal."),
                    .value(
                        "level", short: "l", valueName: "level", kind: .choice(["L", "M", "Q", "H"]), default: "M",
                        help: "Error correction level (M: survives print and photos better than qrencode's L)."),
                    .value(
                        "size", short: "s", valueName: "pixels", kind: .int(1...32), default: "3",
                        help: "Module size in pixels."),
                    .value(
                        "margin", short: "m", valueName: "modules", kind: .int(0...32),
                        help: "Margin width in modules (default 4; 2 for ANSI, UTF8 and ASCII)."),
                ] + sealOptions(encoding: true) + CommonOptions.diagnostics(sipTrace: false),
                examples: [
                    Example("Encode a line file as PNG:", "astra-qr encode --line line.json -o line.png"),
                    Example(
                        "Seal the password with a passphrase:",
                        "astra-qr encode --line line.json --passphrase-file pass.txt -o line.png"),
                    Example(
                        "Show a code in the terminal:",
                        "astra-qr encode --user alice --domain pbx.example.com -t UTF8 -o -"),
                ]),
            CommandSpec(
                name: "decode",
                abstract: "Read QR codes from images and print one line JSON per code.",
                discussion:
                    "A code is input from outside: it may name a line, never lower how that line is protected. "
                    + "A code whose line turns TLS certificate verification off (tls_verify false, k=0), names a "
                    + "local file as its CA (ca_file, c=) or a tls_server_name that is neither its domain nor its "
                    + "server is refused with the reason (exit 1), --raw included; --allow-insecure accepts it for "
                    + "a test rig, and its line then says so: \"insecure\":[\"tls_verify\"]. Give a private CA "
                    + "to the consumer instead (astra-register --ca-file). A code that repeats a field is refused "
                    + "as not a line.",
                arguments: [
                    ArgumentSpec("file", arity: .oneOrMore, help: "Image files (PNG, PGM; '-' = standard input).")
                ],
                options: [
                    .flag("raw", help: "Print the payload text only, one per line (like zbarimg --raw)."),
                    allowInsecureOption(of: "code"),
                ] + sealOptions(encoding: false) + CommonOptions.output + CommonOptions.diagnostics(sipTrace: false),
                examples: [
                    Example("Decode and verify a line:", "astra-qr decode line.png | astra-register"),
                    Example(
                        "Open a sealed code:", "astra-qr decode --passphrase-file pass.txt line.png"),
                ]),
            CommandSpec(
                name: "lines",
                abstract: "Fetch lines from the platform API as JSON Lines.",
                options: [
                    .value("api", valueName: "url", help: "Base URL of the platform API (http:// or https://)."),
                    .value(
                        "firebase-token-file", valueName: "file",
                        help: "Read the Firebase ID token to sign in with from a file ('-' = standard input)."),
                    .value(
                        "timeout", valueName: "seconds", kind: .seconds(max: 300), default: "10",
                        help: "Give up on an API request after this many seconds."),
                    .value(
                        "token-cache", valueName: "file",
                        help: "Keep the 24 h org token in this file (mode 0600) and reuse it until it expires."),
                    allowInsecureOption(of: "platform's line"),
                ] + CommonOptions.output + CommonOptions.diagnostics(sipTrace: false),
                examples: [
                    Example(
                        "Make a code for the first line:",
                        "astra-qr lines --api https://api.example.com --firebase-token-file fb.txt | head -1 "
                            + "| astra-qr encode -o line.png")
                ]),
        ],
        exitStatuses: [
            ExitStatusDoc(.success, "Done; for decode, every image had a code."),
            ExitStatusDoc(
                .failure,
                "A code was found but is not a valid line, or its line weakens TLS (refused without "
                    + "--allow-insecure); lines: the API refused, or a line it returned weakens TLS."),
            ExitStatusDoc(.network, "lines: network error or timeout."),
            ExitStatusDoc(.noCodeFound, "decode: no code found in an image."),
            ExitStatusDoc(
                .usage,
                "Usage error: bad arguments, unreadable input, or (encode) a line that is invalid or names a "
                    + "member twice (EX_USAGE)."),
            softwareStatus,
        ],
        seeAlso: seeAlso(except: "astra-qr") + ["qrencode(1)", "zbarimg(1)"])

    /// `--allow-insecure` of decode and lines: a line from outside that weakens TLS is refused
    /// without it (docs/provisioning.md "Fields that weaken TLS").
    static func allowInsecureOption(of what: String) -> OptionSpec {
        .flag(
            "allow-insecure",
            help: "Accept a \(what) that weakens TLS (tls_verify false, a ca_file, a tls_server_name naming "
                + "another host), for test rigs; the line then says so in \"insecure\". Refused (exit 1) without it.")
    }

    /// `--passphrase`, `--passphrase-file`, `--key-file` (and `--kdf` when encoding).
    static func sealOptions(encoding: Bool) -> [OptionSpec] {
        var options: [OptionSpec] = [
            .value(
                "passphrase", valueName: "text",
                help: encoding
                    ? "Seal the password with this passphrase (prefer --passphrase-file)."
                    : "Open sealed passwords with this passphrase (prefer --passphrase-file)."),
            .value(
                "passphrase-file", valueName: "file", help: "Read the passphrase from the first line of a file."),
            .value(
                "key-file", valueName: "file",
                help: encoding ? "Seal the password with the bytes of a key file." : "Open with a key file."),
        ]
        if encoding {
            options.append(
                .value(
                    "kdf", valueName: "kdf", kind: .choice(["scrypt", "pbkdf2"]),
                    help: "Key derivation for --passphrase (default scrypt)."))
        }
        return options
    }
}

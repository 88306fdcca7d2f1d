extension ToolSpecs {
    /// `astra-trace`: read a `--sip-trace-file` back as a ladder, an SVG, full messages or pcap.
    public static let trace = CommandSpec(
        name: "astra-trace",
        abstract: "Draw a saved SIP trace: a ladder in the terminal, an SVG sequence diagram, full messages, or pcap.",
        discussion: """
            Reads the JSON Lines that astra-register and astra-call write with --sip-trace-file FILE (one \
            redacted SIP message per line) and draws the call flow like sngrep's: time, message number, an \
            arrow between the two socket addresses, the method or status (failures in red). --message N \
            prints message N in full; --call-id keeps one dialog. --format svg draws the same ladder as a \
            picture (-o FILE; rsvg-convert turns it into PNG); --pcap FILE writes the messages as a pcap \
            file for Wireshark.
            """,
        arguments: [ArgumentSpec("file", arity: .optional, help: "The trace file ('-' or absent: standard input).")],
        options: [
            .value(
                "format", valueName: "format", kind: .choice(["ladder", "svg", "full"]), default: "ladder",
                help: "ladder: one line per message; svg: a sequence diagram; full: every message in full."),
            .value("output", short: "o", valueName: "file", help: "Write to a file instead of standard output."),
            .value(
                "message", valueName: "n", kind: .int(1...1_000_000),
                help: "Print message N (as numbered in the ladder) in full."),
            .value("call-id", valueName: "id", help: "Only the messages of this Call-ID (one dialog)."),
            .value("pcap", valueName: "file", help: "Also write the messages to a pcap file (as --pcap would have)."),
            .flag("color", help: "Colour failures in the ladder even when standard output is not a terminal."),
        ] + CommonOptions.diagnostics(sipTrace: false),
        examples: [
            Example("The flow of a call traced with --sip-trace-file call.jsonl:", "astra-trace call.jsonl"),
            Example("Show message 7 in full:", "astra-trace --message 7 call.jsonl"),
            Example("A picture for the bug report:", "astra-trace --format svg -o call.svg call.jsonl && rsvg-convert -o call.png call.svg"),
        ],
        exitStatuses: [
            ExitStatusDoc(.success, "The trace was read and drawn."),
            ExitStatusDoc(.failure, "--message N or --call-id matched no message."),
            usageStatus, softwareStatus,
        ],
        seeAlso: seeAlso(except: "astra-trace") + ["sngrep(8)", "tshark(1)", "rsvg-convert(1)"])
}

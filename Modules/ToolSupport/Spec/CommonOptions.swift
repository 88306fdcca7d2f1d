/// Option groups shared by every tool, so the same flag means the same thing everywhere
/// (TOOLS.md "Common to every tool" and "The line").
public enum CommonOptions {
    /// The keys these options are stored under in ``ParsedArguments``.
    public enum Key {
        public static let json = "json"
        public static let format = "format"
        public static let verbose = "verbose"
        public static let sipTrace = "sip-trace"
        public static let sipTraceFile = "sip-trace-file"
        public static let pcap = "pcap"
        public static let pcapRTPPayload = "pcap-rtp-payload"
        public static let hep = "hep"
        public static let hepID = "hep-id"
        public static let hepPasswordFile = "hep-password-file"
        public static let seed = "seed"
        public static let line = "line"
        public static let user = "user"
        public static let authUser = "auth-user"
        public static let password = "password"
        public static let passwordFile = "password-file"
        public static let domain = "domain"
        public static let server = "server"
        public static let transport = "transport"
        public static let wsPath = "ws-path"
        public static let caFile = "ca-file"
        public static let expires = "expires"
        public static let displayName = "display-name"
        public static let insecure = "insecure"
    }

    /// The transports of a line, in TOOLS.md order.
    public static let transports = ["udp", "tcp", "tls", "ws", "wss"]

    /// `--json`, `--format text|json`.
    public static let output: [OptionSpec] = [
        .flag(Key.json, help: "Write JSON Lines to standard output (the default when it is not a terminal)."),
        .value(
            Key.format, valueName: "format", kind: .choice(OutputFormat.allCases.map(\.rawValue)),
            help: "Output format; text on a terminal and json otherwise when not given."),
    ]

    /// `-v`/`-vv`; with `sipTrace`, also `--sip-trace`.
    public static func diagnostics(sipTrace: Bool) -> [OptionSpec] {
        var options: [OptionSpec] = [
            .counter(Key.verbose, short: "v", help: "Print more diagnostics to standard error; repeat (-vv) for debug.")
        ]
        if sipTrace {
            options.append(
                .optionalValue(
                    Key.sipTrace, valueName: "style", kind: .choice(["full", "ladder"]),
                    help: "Print every SIP message sent and received to standard error, with secrets redacted: "
                        + "in full (--sip-trace), or one ladder line each, arrows between the addresses with the "
                        + "method or status (--sip-trace ladder, or --sip-trace=ladder)."))
        }
        return options
    }

    /// Exports of what a SIP tool sent and received, each redacted like `--sip-trace`.
    public static let capture: [OptionSpec] = [
        .value(
            Key.sipTraceFile, valueName: "file",
            help: "Write every SIP message to a file, one JSON object per message (read it with astra-trace)."),
        .value(
            Key.pcap, valueName: "file",
            help: "Write every SIP message (after TLS/WebSocket decoding) and the call's RTP/RTCP headers to a "
                + "pcap file, as UDP/TCP between the real addresses, for Wireshark and tshark."),
        .flag(Key.pcapRTPPayload, help: "With --pcap: keep the RTP payload (the audio) too."),
        .value(
            Key.hep, valueName: "[udp:]host:port",
            help: "Send every SIP message to a Homer/HEP collector (HEP version 3 over UDP), e.g. sngrep -L "
                + "(127.0.0.1:9060 or udp:127.0.0.1:9060)."),
        .value(
            Key.hepID, valueName: "n", kind: .int(0...Int(UInt32.max)), default: "2001",
            help: "With --hep: the capture agent id."),
        .value(
            Key.hepPasswordFile, valueName: "file",
            help: "With --hep: read the collector's auth key (password) from the first line of a file."),
    ]

    /// The range of `--seed` (astra-pushsim takes the whole unsigned range: ToolSpecs.pushsimSeed).
    public static let seedRange = 0...Int.max

    /// `--seed N` for tools whose output depends on randomness. It makes identifiers that appear in
    /// output repeatable; key material never comes from it (docs/decisions.md D3).
    public static let seed = OptionSpec.value(
        Key.seed, valueName: "n", kind: .int(seedRange),
        help: "Seed for the identifiers in the output (tags, branches, Call-IDs, ports), so runs repeat. Keys, "
            + "ICE passwords, digest cnonces and push ids always come from the system's random source.")

    /// The line flags, the same in every tool: flags > `--line FILE` > standard input when not a terminal.
    public static let line: [OptionSpec] = [
        .value(Key.line, valueName: "file", help: "Read the line (account) JSON from a file ('-' = standard input)."),
        .value(Key.user, valueName: "user", help: "SIP user (the user part of the address of record)."),
        .value(Key.authUser, valueName: "user", help: "Digest authentication user name (default: --user)."),
        .value(Key.password, valueName: "password", help: "Digest password (prefer --password-file)."),
        .value(Key.passwordFile, valueName: "file", help: "Read the digest password from the first line of a file."),
        .value(Key.domain, valueName: "domain", help: "SIP domain (the host part of the address of record)."),
        .value(
            Key.server, valueName: "host[:port]",
            help: "Registrar/proxy to connect to (default: the domain; port by transport: 5060, 5061, 80, 443)."),
        .value(
            Key.transport, valueName: "transport", kind: .choice(transports), help: "Transport; udp when not given."),
        .value(Key.wsPath, valueName: "path", help: "WebSocket resource path for ws/wss (default: /ws)."),
        .value(Key.caFile, valueName: "file", help: "PEM file of trusted CA certificates for tls/wss."),
        .value(
            Key.expires, valueName: "seconds", kind: .int(1...Int(Int32.max)),
            help: "Registration expiry to ask for, in seconds (default 3600), sent as it is: the registrar's 423 "
                + "Min-Expires or shorter grant shows in the result."),
        .value(Key.displayName, valueName: "name", help: "Display name in From/Contact."),
    ]

    /// `--insecure` of the tools that connect with a line (astra-register, astra-call): like
    /// curl's `-k`, the run's own switch for no certificate verification. A line's
    /// `tls_verify: false` is refused without it, so a file, a pipeline or a QR code cannot turn
    /// verification off alone (docs/line.md "TLS verification").
    public static let insecure = OptionSpec.flag(
        Key.insecure,
        help: "Do not verify the server's TLS certificate (test rigs only, like curl -k). A line with "
            + "tls_verify false is refused without it (exit 64).")

    /// The positional `sip:USER@DOMAIN` / `sips:…` that may stand for `--user` + `--domain`.
    public static func addressOfRecord(_ arity: ArgumentSpec.Arity = .optional) -> ArgumentSpec {
        ArgumentSpec(
            "aor", arity: arity, help: "Address of record sip:USER@DOMAIN or sips:…; stands for --user and --domain.")
    }
}

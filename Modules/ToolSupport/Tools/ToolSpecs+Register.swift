extension ToolSpecs {
    /// `astra-register`: verify a line (register, report, unregister).
    public static let register = CommandSpec(
        name: "astra-register",
        abstract: "Verify a SIP line: register, report, unregister.",
        discussion: """
            One-shot by default: resolve the server, connect, register with digest authentication, \
            report the result as JSON, unregister and exit. With --keep it stays registered and refreshes \
            until SIGINT/SIGTERM, then unregisters. Over UDP a one-shot uses one connected socket: an ICMP port \
            unreachable ends it at once (exit 3, "port unreachable").

            The line comes from flags, then --line FILE, then standard input when it is not a terminal.
            """,
        arguments: [CommonOptions.addressOfRecord()],
        options: CommonOptions.line + [
            .flag("keep", help: "Stay registered and refresh until interrupted, then unregister."),
            .flag("expect-qualify", help: "Wait for the server's OPTIONS (qualify) and report that it was answered."),
            .value(
                "timeout", valueName: "seconds", kind: .seconds(), default: "10", help: "Give up (exit 3) after this long."
            ),
            .flag("nagios", help: "Print one Nagios plugin status line instead of events."),
            .value(
                "load", valueName: "file",
                help: "Load mode: register every line of a JSON Lines file ('-' = standard input)."),
            .value(
                "concurrency", valueName: "n", kind: .int(1...10_000), default: "10",
                help: "Load mode: registrations in flight at once."),
        ] + CommonOptions.output + CommonOptions.diagnostics(sipTrace: true) + [CommonOptions.seed],
        examples: [
            Example("Register once and report:", "astra-register --password-file pw.txt sip:alice@pbx.example.com"),
            Example("Verify the line in a provisioning code:", "astra-qr decode line.png | astra-register"),
            Example(
                "Stay registered over WSS and answer qualifies:",
                "astra-register --line line.json --transport wss --keep --expect-qualify"),
            Example("Load test 500 lines, 50 at a time:", "astra-register --load lines.jsonl --concurrency 50"),
        ],
        exitStatuses: [
            ExitStatusDoc(.success, "Registered (and, with --expect-qualify, the qualify was answered)."),
            ExitStatusDoc(.failure, "Rejected: 401/403/404 after authentication, or another final failure response."),
            ExitStatusDoc(
                .network,
                "Network error or timeout (resolve, connect, TLS, WebSocket upgrade, no response, ICMP port unreachable)."),
            certificateStatus,
            usageStatus, softwareStatus,
        ],
        seeAlso: seeAlso(except: "astra-register") + ["sipsak(1)"])
}

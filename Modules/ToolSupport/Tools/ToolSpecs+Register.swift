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
            .flag(
                "nagios",
                help: "Be a monitoring plugin (Monitoring Plugins guidelines): one status line "
                    + "'SIP OK|WARNING|CRITICAL|UNKNOWN - …|perfdata' instead of events; exit 0 OK, 1 WARNING, "
                    + "2 CRITICAL, 3 UNKNOWN (usage and configuration errors included)."),
            .value(
                "warning", short: "w", valueName: "range",
                help: "With --nagios: WARNING when the registration time in seconds (connect to 200 OK) is outside "
                    + "this range (10 = 0…10, 10: = at least 10, ~:10, 10:20, @10:20 = inside)."),
            .value(
                "critical", short: "c", valueName: "range",
                help: "With --nagios: CRITICAL when the registration time in seconds is outside this range."),
            .value(
                "load", valueName: "file",
                help: "Load mode: register every line of a JSON Lines file ('-' = standard input)."),
            .value(
                "concurrency", valueName: "n", kind: .int(1...10_000), default: "10",
                help: "Load mode: registrations in flight at once."),
        ] + CommonOptions.output + CommonOptions.diagnostics(sipTrace: true) + CommonOptions.capture + [CommonOptions.seed],
        examples: [
            Example("Register once and report:", "astra-register --password-file pw.txt sip:alice@pbx.example.com"),
            Example("Verify the line in a provisioning code:", "astra-qr decode line.png | astra-register"),
            Example(
                "Stay registered over WSS and answer qualifies:",
                "astra-register --line line.json --transport wss --keep --expect-qualify"),
            Example("Load test 500 lines, 50 at a time:", "astra-register --load lines.jsonl --concurrency 50"),
            Example(
                "A Nagios/Icinga check: WARNING above 0.5 s, CRITICAL above 2 s:",
                "astra-register --nagios -w 0.5 -c 2 --line line.json"),
        ],
        exitStatuses: [
            ExitStatusDoc(.success, "Registered (and, with --expect-qualify, the qualify was answered)."),
            ExitStatusDoc(.failure, "Rejected: 401/403/404 after authentication, or another final failure response."),
            ExitStatusDoc(
                .network,
                "Network error or timeout (resolve, connect, TLS, WebSocket upgrade, no response, ICMP port unreachable)."),
            certificateStatus,
            usageStatus, softwareStatus,
            ExitStatusDoc(
                ExitCode(2),
                "With --nagios, the plugin states instead: 0 OK, 1 WARNING, 2 CRITICAL (rejected, network error, "
                    + "timeout, or over -c), 3 UNKNOWN (usage or configuration error), each with its status line."),
        ],
        seeAlso: seeAlso(except: "astra-register") + ["sipsak(1)"],
        monitoring: MonitoringPlugin(flag: "nagios", service: "SIP"))
}

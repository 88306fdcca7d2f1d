extension ToolSpecs {
    /// `astra-register`: verify a line (register, report, unregister).
    public static let register = CommandSpec(
        name: "astra-register",
        abstract: "Verify a SIP line: register, report, unregister.",
        discussion: """
            One-shot by default: resolve the server, connect, register with digest authentication, \
            report the result as JSON, unregister and exit. With --keep it stays registered and refreshes \
            until SIGINT/SIGTERM, then unregisters. Over UDP a one-shot uses one connected socket: an ICMP port \
            unreachable ends it at once (exit 3, "port unreachable"). The result's timings_ms (connect, \
            first_response, register, total) are stamped where the messages cross the socket, on the clock \
            --sip-trace prints. The REGISTER asks for exactly --expires (the line's expires, else 3600) unless \
            --expires-policy clamps it; the result's expires is what the registrar granted, expires_requested and \
            expires_sent what was asked and sent, min_expires a 423 Interval Too Brief's Min-Expires (null without \
            one; the REGISTER is then retried with it). A registration-only line answers what the server sends it: INVITE 480 (with a \
            Reason), a cancelled INVITE 487, OPTIONS 200, requests for a dialog it never made 481.

            On a terminal (or with --format text) the result is one verdict line instead: \
            '✔ sip:1001@pbx registered over WSS in 24 ms (connect 14, register 2), expires 300 s', or \
            '✘ … not registered over WSS: ' and why in words with the fix to try (e.g. 'pass --ca-file'); \
            the events before it, each a sentence, with -v or --keep. JSON (piped, or --json) is unchanged.

            The line comes from flags, then --line FILE, then standard input when it is not a terminal.

            Load mode (--load FILE) registers every line (--concurrency at a time, --rate per second, for \
            --duration), prints a line_result event per line and a load_summary at the end (lines, planned, \
            started, done, registered, failed, abandoned, not_started, stopped: completed, duration, run_timeout \
            or signal, concurrency, rate_limit, wall_ms, rate_per_s, latency_ms p50/p90/p99/max). planned is the \
            file's lines, or with --duration the rate times the duration (null without --rate, and then \
            not_started is null too); started = done + abandoned, done = registered + failed, not_started = \
            planned - started. Progress uses the same counts: refreshed on stderr about once a second when it \
            is a terminal (the line results are written above it, and the last one has the final counts), and \
            printed as progress events (the same counts, in_flight, rate_per_s, p50_ms) otherwise. SIGINT/SIGTERM (or \
            --run-timeout) stop new registrations, abandon those in flight, unregister what was registered and \
            print the summary so far; a second signal skips the unregistering. The exit code of a load run: 3 \
            at the run timeout, else the finished lines decide (abandoned and never-started lines count neither \
            way).

            Over TCP, TLS, WS and WSS the lines of a load run share one connection by default. With --storm each \
            line opens its own connection instead (TCP connect, a full TLS handshake, the WebSocket upgrade), \
            registers with digest, unregisters and closes, as a crowd of phones reconnecting at once does; with \
            --fleet each line connects, registers and is held for --duration: refreshed before expiry, kept \
            alive every --keep-alive seconds (CRLF pings on TCP/TLS, WebSocket pings on WS/WSS, RFC 5626), \
            reconnected and re-registered when its connection drops. Both run every connection on one event loop; \
            each line is its own device (its own +sip.instance). Their load_summary adds mode, transport, \
            connections, connections_per_s, failures by cause (connect, tls, websocket, closed, protocol, timeout, \
            sip, keep_alive), handshake_ms / connect_ms / tls_ms / websocket_ms / register_ms percentiles, \
            unregistered, cpu_ms and cpu_ms_per_registration; a fleet also held_at_end, most_held, drops, \
            drop_causes, reconnects, refreshes, refreshes_late (sent over 1 s late or answered after expiry), \
            refresh_failures, refresh_ms, refresh_lateness_ms, keep_alive_pings / _pongs, hold_ms, rss_kib and \
            rss_kib_per_line; a fleet's wall_ms is its ramp (every line's first outcome), and its summary in \
            words gives the ramp, the hold and the hold's figures. A dropped connection is a line_dropped event. \
            The soft open-file limit is raised \
            to the hard one when the lines need it.

            Monitor mode (--monitor FILE) keeps every line of the file registered as a phone would (refreshed \
            before the granted expiry, reconnected with back-off), sends each line's registrar an OPTIONS every \
            --ping-interval, reads the server certificate's expiry on TLS and WSS, and serves Prometheus metrics \
            on GET /metrics at --metrics (text format 0.0.4, or OpenMetrics 1.0 when the Accept header asks): \
            sip_line_up, sip_line_registered, sip_register_duration_seconds and sip_options_duration_seconds \
            (histograms, 5 ms to 5 s), sip_line_failures_total by cause (timeout, refused, auth, tls_verify, \
            tls_handshake, dns, closed, websocket, protocol, server_error, rejected) and \
            sip_tls_certificate_expiry_timestamp_seconds, labelled line, transport and server. A ping that fails \
            marks the line down and not registered; it registers again once the registrar answers. SIGHUP \
            re-reads the file (new lines start, removed ones unregister, the others are untouched); \
            SIGINT/SIGTERM unregister every line and exit 0. Events: monitoring, line_state (line, up, \
            registered), reloaded, reload_failed, stopped (docs/monitoring.md).

            --shard I/N takes every N-th line of the file starting at line I (from 0), so a fleet larger than one \
            machine runs as N processes (a Kubernetes indexed Job, GNU parallel); --merge FILE reads their JSON \
            Lines (concatenated, '-' = standard input) and prints one load_summary: counts and rates summed, \
            percentiles recomputed from every line_result, wall_ms the longest shard's.
            """,
        arguments: [CommonOptions.addressOfRecord()],
        options: CommonOptions.line + [
            CommonOptions.insecure,
            .value(
                "expires-policy", valueName: "min:max",
                help: "Clamp the requested expiry to min…max seconds (a line plan's policy, e.g. 30:300); the "
                    + "clamp is said on stderr and in the result (expires_requested, expires_sent)."),
            .flag("keep", help: "Stay registered and refresh until interrupted, then unregister (an unregistered event says so)."),
            .flag("expect-qualify", help: "Wait for the server's OPTIONS (qualify) and report that it was answered."),
            .value(
                "timeout", valueName: "seconds", kind: .seconds(), default: "10",
                help: "Give up (exit 3) after this long. Load mode: each line's bound (its REGISTERs and their "
                    + "answers), so a silent server fails a line then, not after Timer F (32 s)."),
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
            .value(
                "rate", valueName: "n/s", kind: .perSecond(0.01...100_000),
                help: "Load mode: start at most this many registrations per second (e.g. 50/s)."),
            .value(
                "duration", valueName: "seconds", kind: .seconds(),
                help: "Load mode: keep registering for this long, cycling through the lines (a registered "
                    + "line refreshes), then stop, unregister and report."),
            .flag(
                "storm",
                help: "Load mode over TCP/TLS/WS/WSS: each line on its own new connection (connect, TLS, "
                    + "WebSocket upgrade), registers, unregisters and closes."),
            .flag(
                "fleet",
                help: "Load mode over TCP/TLS/WS/WSS: each line on its own connection, registered and held for "
                    + "--duration (refresh, keep-alive, reconnect), then unregistered."),
            .value(
                "keep-alive", valueName: "seconds", kind: .seconds(max: 3600), default: "30",
                help: "With --fleet: keep-alive period of each connection (each ping after 80-100 % of it; a pong "
                    + "is due within 10 s, RFC 5626 §4.4.1)."),
            .value(
                "shard", valueName: "I/N",
                help: "Load mode: take only every N-th line starting at line I (0 ≤ I < N ≤ 10000), to run one "
                    + "load as N processes."),
            .value(
                "merge", valueName: "file",
                help: "Combine the JSON Lines of several load runs (shards; '-' = standard input) into one "
                    + "load_summary."),
            .value(
                "monitor", valueName: "file",
                help: "Monitor mode: keep every line of a JSON Lines file registered (each may have a \"name\", "
                    + "its metrics label), ping each with OPTIONS and serve Prometheus metrics (--metrics)."),
            .value(
                "metrics", valueName: "host:port", default: "127.0.0.1:9779",
                help: "Monitor mode: where GET /metrics is served (IPv4; port 0 = any free port)."),
            .value(
                "ping-interval", valueName: "seconds", kind: .seconds(max: 3600), default: "30",
                help: "Monitor mode: OPTIONS to each line's registrar this often; each is bounded by --timeout."),
            .value(
                "run-timeout", valueName: "seconds", kind: .seconds(),
                help: "Load mode: bound for the whole run: then no new line starts, lines in flight are "
                    + "abandoned, what registered is unregistered, the summary so far is printed (exit 3)."),
        ] + CommonOptions.output + CommonOptions.diagnostics(sipTrace: true) + CommonOptions.capture + [CommonOptions.seed],
        examples: [
            Example("Register once and report:", "astra-register --password-file pw.txt sip:alice@pbx.example.com"),
            Example("Verify the line in a provisioning code:", "astra-qr decode line.png | astra-register"),
            Example(
                "Stay registered over WSS and answer qualifies:",
                "astra-register --line line.json --transport wss --keep --expect-qualify"),
            Example("Load test 500 lines, 50 at a time:", "astra-register --load lines.jsonl --concurrency 50"),
            Example(
                "A WSS registration storm, each line on a fresh TLS + WebSocket connection:",
                "astra-register --load wss-lines.jsonl --storm --concurrency 200"),
            Example(
                "Hold 10,000 WSS lines for 60 s as 4 processes, then one summary:",
                "for i in 0 1 2 3; do astra-register --load fleet.jsonl --fleet --duration 60 --shard $i/4 "
                    + "--concurrency 100 > shard-$i.jsonl & done; wait; cat shard-*.jsonl | astra-register --merge -"),
            Example(
                "Watch every line of a file and serve Prometheus metrics on port 9779:",
                "astra-register --monitor lines.jsonl --metrics 127.0.0.1:9779 --ping-interval 30"),
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
            lineUsageStatus, softwareStatus,
            ExitStatusDoc(
                ExitCode(2),
                "With --nagios, the plugin states instead: 0 OK, 1 WARNING, 2 CRITICAL (rejected, network error, "
                    + "timeout, or over -c), 3 UNKNOWN (usage or configuration error, a server certificate that does "
                    + "not verify), each with its status line."),
        ],
        seeAlso: seeAlso(except: "astra-register") + ["sipsak(1)"],
        monitoring: MonitoringPlugin(flag: "nagios", service: "SIP"))
}

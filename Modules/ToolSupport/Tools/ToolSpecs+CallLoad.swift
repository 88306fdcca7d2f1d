extension ToolSpecs {
    /// `astra-call answer --load FILE`: the answering fleet of a load run.
    static let callFleetOptions: [OptionSpec] = [
        .value(
            "load", valueName: "file",
            help: "Register every line of this JSON Lines file (one line object a row) and answer every call on "
                + "each, any number at once, as this command answers one (--after, --reject, --echo, --tone; "
                + "--record FILE writes FILE-N.wav per call). Each call's end is an ended event with line and "
                + "call_id; SIGINT hangs up what is up (BYE), unregisters and prints fleet_summary."),
    ]

    /// `astra-call load`: many calls, with media, to a target or a fleet.
    static let callLoadCommand = CommandSpec(
        name: "load",
        abstract: "Place many calls with media (a tone each) and report each call and a summary.",
        discussion: """
            Registers the line (or every line of --lines), then places calls to the target (or the targets of \
            --targets, in turn) as --rate and --concurrency allow, until --calls calls were placed or --duration \
            is over. Each answered call sends a tone for --hold seconds and is hung up (BYE). Each call's end is \
            a call_result event (answered, ok, cause, status, setup_ms, tone check, stats: packets each way, \
            loss, jitter, MOS as dial's ended event); the run ends with load_summary (planned, attempted, done, \
            ok, failed, abandoned, not_started, answered, two_way_media, failed_by_cause, setup_ms p50/p95/p99, \
            mos p5/p50, cpu_s, cpu_s_per_call, wall_ms). A call is ok when it was answered, ended by a hang-up, \
            had packets both ways and (with --expect-tone) carried the tone; else its cause is the final status \
            (486, 503, …), the end reason, no_media or no_tone. Progress is a line on standard error when it is \
            a terminal. SIGINT/SIGTERM or --run-timeout: no new call, every live call is hung up (BYE, or \
            CANCEL before the answer), then the summary so far.
            """,
        arguments: [
            ArgumentSpec(
                "target", arity: .optional,
                help: "Who to call: sip:USER@DOMAIN, or a user or number in the line's domain.")
        ],
        options: CommonOptions.line + [
            CommonOptions.insecure,
            .value(
                "lines", valueName: "file",
                help: "Place the calls from every line of this JSON Lines file in turn, instead of one line."),
            .value("targets", valueName: "file", help: "Call the targets of this file (one a row) in turn."),
            .value(
                "shard", valueName: "I/N",
                help: "Place calls only from every N-th line of --lines starting at line I (0 ≤ I < N ≤ 10000), "
                    + "to run one load as N processes; --calls, --rate and --concurrency are each process's."),
            .value(
                "merge", valueName: "file",
                help: "Combine the JSON Lines of several load runs (shards; '-' = standard input) into one "
                    + "load_summary: counts and failures by cause summed, set-up and MOS percentiles from every "
                    + "call_result, wall_ms the longest shard's. Places no call."),
            .value(
                "concurrency", valueName: "n", kind: .int(1...10_000), default: "10", help: "Calls up at once."),
            .value(
                "rate", valueName: "n/s", kind: .perSecond(0.01...10_000),
                help: "Start at most this many calls per second (e.g. 10/s)."),
            .value(
                "calls", valueName: "n", kind: .int(1...10_000_000),
                help: "Calls to place (default: one per line)."),
            .value(
                "duration", valueName: "seconds", kind: .seconds(),
                help: "Keep placing calls for this long instead of --calls."),
            .value(
                "hold", valueName: "seconds", kind: .delay(), default: "10",
                help: "Hang up each call this long after its answer."),
            .value(
                "timeout", valueName: "seconds", kind: .seconds(), default: "30",
                help: "A call not answered this long after its INVITE is cancelled (cause no_answer)."),
            .value(
                "run-timeout", valueName: "seconds", kind: .seconds(),
                help: "Bound for the whole run: then no new call starts, live calls are hung up, the summary so "
                    + "far is printed (exit 3)."),
            .value(
                "media", valueName: "profile", kind: .choice(["rtp", "srtp", "webrtc"]), default: "rtp",
                help: "Media of every call: rtp (RTP/AVP), srtp (SDES-SRTP, RFC 4568) or webrtc (ICE + DTLS-SRTP, "
                    + "rtcp-mux)."),
            .value("tone", valueName: "hz", kind: .double(1...3_999), default: "440", help: "The tone each call sends."),
            .value(
                "expect-tone", valueName: "hz", kind: .double(1...3_999),
                help: "Check that each call's received audio carried this tone (e.g. the far end echoes ours)."),
            .value(
                "expect-tone-share", valueName: "fraction", kind: .double(0...1), default: "0.5",
                help: "Share of the received audio the --expect-tone tone must fill."),
            .value(
                "rtp-timeout", valueName: "seconds", kind: .delay(), default: "30",
                help: "Hang up a call when no RTP arrived for this long (0: never)."),
            .value(
                "media-address", valueName: "ipv4",
                help: "Address for RTP and the SDP c= line (default: the signalling flow's local address)."),
        ] + CommonOptions.output + CommonOptions.diagnostics(sipTrace: true) + CommonOptions.capture + [
            CommonOptions.seed
        ],
        examples: [
            Example(
                "20 calls at once, 5 per second, 10 s each, to an answering fleet that echoes:",
                "astra-call load --lines callers.jsonl --concurrency 20 --rate 5/s --calls 100 --hold 10 "
                    + "--expect-tone 440 --targets callees.txt"),
            Example(
                "The same load as four processes, then one summary:",
                "for i in 0 1 2 3; do astra-call load --lines callers.jsonl --shard $i/4 --calls 25 "
                    + "--targets callees.txt > shard-$i.jsonl & done; wait; cat shard-*.jsonl | astra-call load --merge -"),
        ])
}

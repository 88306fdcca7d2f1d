extension ToolSpecs {
    /// `--policy naive|correct`: the client policy under test (PushKitEmu `PolicyChoice`).
    static let pushsimPolicy = OptionSpec.value(
        "policy", valueName: "policy", kind: .choice(["correct", "naive"]), default: "correct",
        help: "Client policy under test: correct, or naive (the field bugs).")

    /// `--strike-limit N`: the R2 strike threshold.
    static let pushsimStrikeLimit = OptionSpec.value(
        "strike-limit", valueName: "n", kind: .int(1...1_000), default: "3",
        help: "Unreported pushes before iOS stops delivering (R2; Apple publishes no number).")

    /// `--seed N`: the virtual run's seed, over the whole unsigned 64-bit range, because the seeds
    /// the tool prints (fuzz case seeds, `first_failed_seed`) span all of it and each must replay.
    static func pushsimSeed(_ help: String) -> OptionSpec {
        .value(CommonOptions.Key.seed, valueName: "n", kind: .unsigned(0...UInt64.max), default: "1", help: help)
    }

    /// `run`, `check`, `live`: what the seed decides.
    static let pushsimRunSeed = pushsimSeed(
        "Seed of the run (0…2^64−1): tokens and delivery draws; every seed the tool prints replays with it. "
            + "For fuzz:SEED the default is the case's own seed.")

    /// `--delivery ideal|field[|both]`: the delivery model (PushKitEmu `DeliveryModel`).
    static func pushsimDelivery(both: Bool) -> OptionSpec {
        .value(
            "delivery", valueName: "model", kind: .choice(both ? ["ideal", "field", "both"] : ["ideal", "field"]),
            default: both ? "both" : "ideal",
            help: both
                ? "Delivery model: ideal (fixed delays, one run each), field (published APNs figures, loss, late delivery, cold-launch spread; --field-runs seeds each), or both."
                : "Delivery model: ideal (fixed delays) or field (published APNs delay figures, loss, late delivery, cold-launch spread; --seed picks the draws).")
    }

    /// Delay and loss overrides of the delivery model.
    static let pushsimDeliveryOverrides: [OptionSpec] = [
        .value(
            "apns-delay", valueName: "spec",
            help: "APNs delivery delay: MS, fixed:MS, uniform:MIN:MAX or lognormal:MEDIAN:P95 (replaces the model's)."),
        .value(
            "cold-launch", valueName: "spec",
            help: "Cold launch of a killed app, same forms as --apns-delay (replaces the model's)."),
        .value(
            "loss-percent", valueName: "percent", kind: .double(0...100),
            help: "Percent of pushes to an online device APNs never delivers (replaces the model's)."),
    ]

    /// `--client-cmd` and its answer bound.
    static let pushsimClient: [OptionSpec] = [
        .value(
            "client-cmd", valueName: "command",
            help: "Judge your own client: run COMMAND (through /bin/sh) and speak the client protocol (astra-pushsim-client/1, JSON Lines on its stdin/stdout) instead of --policy."),
        .value(
            "client-timeout-ms", valueName: "ms", kind: .milliseconds(1...600_000), default: "5000",
            help: "Wall-clock bound on each client answer; a client that does not answer in time breaks CLIENT."),
    ]

    /// `run` and `live`: JSON Lines, text, or the timeline as an SVG sequence diagram.
    static let pushsimTimelineOutput: [OptionSpec] = [
        .flag(CommonOptions.Key.json, help: "Write JSON Lines to standard output (the default when it is not a terminal)."),
        .value(
            CommonOptions.Key.format, valueName: "format", kind: .choice(["json", "text", "svg"]),
            help: "Output format: json, text, or svg (the timeline as a sequence diagram with one lane per actor — "
                + "caller, Kamailio, gateway, APNs, iOS, app — and rule violations in red); text on a terminal "
                + "and json otherwise when not given."),
        .value("output", short: "o", valueName: "file", help: "With --format svg: write the picture to a file."),
    ]

    /// `astra-pushsim`: exercise the push wake-decision rules (docs/push-wake-rules.md) in virtual time.
    public static let pushsim = CommandSpec(
        name: "astra-pushsim",
        abstract: "Exercise PushKit/CallKit wake-decision rules in virtual time.",
        discussion: """
            Runs the PushKitEmu emulator: a phone (app states, PushKit, CallKit), APNs and the server's \
            wake decision v2, in virtual milliseconds, with a client policy as the code under test. Every \
            rule of docs/push-wake-rules.md (R1-R6) and the failover bound (WAKE) is checked; violations appear on \
            the timeline and in the verdict. No wall-clock time passes, and the same seed gives the same \
            output. Rules, settings, event names and scenario files: docs/pushkit-emulator.md.

            Every output line is JSON with "event" and "t" (virtual ms) first; push tokens appear only as \
            redacted:<fingerprint>.
            """,
        subcommands: [
            CommandSpec(
                name: "run",
                abstract: "Run one scenario and print its timeline, with the verdict at the end.",
                discussion: """
                    Built-in scenarios: killed, background, foreground, locked, offline, reconnect, \
                    reconnect-stored, dead-phone, token-rotated, unknown-origin, cancel-before-wake, \
                    cancel-after-ack, answer-before-invite, answer-then-gone, decline-before-invite, no-invite, \
                    strike-out, message, sealed-call, sealed-unknown-gateway, sealed-wrong-call-id, sealed-tampered, \
                    sealed-missing-key, sealed-late, sealed-token-revoked, sealed-grant-renewal, \
                    sealed-grant-expired. fuzz:SEED replays a fuzz case. Exit 1 when a rule is broken or \
                    the outcomes differ from the scenario's expect list.
                    """,
                arguments: [
                    ArgumentSpec(
                        "scenario",
                        help: "A built-in scenario name, fuzz:SEED, or a scenario JSON file ('-' = standard input).")
                ],
                options: [pushsimPolicy, pushsimStrikeLimit, pushsimRunSeed, pushsimDelivery(both: false)]
                    + pushsimDeliveryOverrides + pushsimClient + pushsimTimelineOutput
                    + CommonOptions.diagnostics(sipTrace: false),
                examples: [
                    Example("Replay the killed-app scenario:", "astra-pushsim run killed | jq ."),
                    Example(
                        "Draw the naive client's broken wake:",
                        "astra-pushsim run killed --policy naive --format svg -o wake.svg && rsvg-convert -o wake.png wake.svg"),
                    Example(
                        "The same under field delivery (seed 7's delays):",
                        "astra-pushsim run killed --delivery field --seed 7 --format text"),
                    Example(
                        "Show why a dead phone fails over within 3 s:", "astra-pushsim run dead-phone --format text"),
                ]),
            CommandSpec(
                name: "live",
                abstract: "Run one scenario end to end with a real phone, Kamailio, the wake gateway and a caller.",
                discussion: """
                    Live mode: the phone is a real SIP user agent (WSS to Kamailio, CallSession \
                    calls with media) inside an emulated iPhone whose app state, lock and network the scenario \
                    sets; its push handler is the same client policy as in virtual time, judged by the same \
                    rule checker. Pushes come from the gateway's APNs emulator over its device port; the ack \
                    goes to the gateway's HTTP API. Scenarios: killed, background, locked, offline, reconnect, \
                    dead-phone, cancel-before-wake, cancel-after-ack, answer-before-invite, \
                    decline-before-invite, token-rotated. Unless --gateway-http-port is given, the \
                    tool starts a Kamailio (scripts/kamailio.sh, random ports, KAMAILIO_WAKE_GATEWAY set) and \
                    astra-wakegw itself (with --gone-notice for cancel-after-ack), and stops them at the end; \
                    a running gateway must have been started with --gone-notice for cancel-after-ack. Output: \
                    the timeline with "t" in wall-clock ms, then a verdict with "mode":"live", \
                    "push_to_ring_ms" (caller INVITE to its 180), "failover_ms" (caller INVITE to the failover \
                    answer), "caller_left_to_end_ms" (caller hang-up to the phone's CallKit end) and \
                    "two_way_audio". The app's code runs as a process of its own that the emulated iOS starts \
                    at each launch and kills when the app dies — a killed app has no process until a push \
                    arrives ("app_process_started" with its pid; "spawn_to_report_ms" and \
                    "spawn_to_register_ms" in the verdict are the measured cold start): --client-cmd, or \
                    this binary's client --policy P. --delivery field adds, on the device, the field \
                    model's APNs delay, loss and iOS cold launch ("apns_delay_ms", "launch_delay_ms"). \
                    Exit 1 when a rule is broken or an outcome differs, 3 when a peer could not be started \
                    or reached, 64 when the client command cannot start.
                    """,
                arguments: [ArgumentSpec("scenario", help: "A live scenario name.")],
                options: [
                    pushsimPolicy,
                    .value("ack-window-ms", valueName: "ms", kind: .milliseconds(1...600_000), default: "2000",
                           help: "Gateway ack window (passed to astra-wakegw; sets the failover bound)."),
                    .value("apns-delay-ms", valueName: "ms", kind: .milliseconds(0...600_000), default: "0",
                           help: "APNs delivery delay of the gateway's emulator."),
                    .value("qualify-timeout-ms", valueName: "ms", kind: .milliseconds(1...60_000), default: "500",
                           help: "Gateway qualify timeout."),
                    .flag("rfc8599", help: "Register with pn-provider/pn-prid/pn-param instead of the token endpoint."),
                    .value("platform", valueName: "platform", kind: .choice(["ios", "android"]), default: "ios",
                           help: "The phone: ios (APNs, PushKit rules) or android (an FCM token on the token endpoint; the gateway pushes through FCM HTTP v1). With --rfc8599 it registers pn-provider=fcm (RFC 8599 §10) instead."),
                    .flag("sealed", help: "Sealed pushes: the gateway runs --sealed required; the phone registers a fresh device key, call grant and call key, hands the app its keys at every launch and judges every push (joined gateway, opens for its call ID, not late)."),
                    .value("seal-fault", valueName: "fault", kind: .choice(["none", "wrong_call_id", "tampered"]), default: "none",
                           help: "With --sealed: the phone's copy of each push is changed on the way — wrong_call_id (another call ID: the blob no longer opens for it) or tampered (one ciphertext byte). A correct app reports the app's name and ends it without an ack; the call fails over."),
                    .value("provider-capture", valueName: "file",
                           help: "Passed to the astra-wakegw this tool starts: every provider request it makes is written to FILE."),
                    .value("wakegw", valueName: "file", help: "The astra-wakegw binary (default: beside astra-pushsim)."),
                    .value("kamailio-script", valueName: "file",
                           help: "scripts/kamailio.sh (default: found from the current directory or the binary)."),
                    .value("kamailio-sip-port", valueName: "port", kind: .port,
                           help: "Use a running Kamailio: its UDP port (with the gateway options below)."),
                    .value("kamailio-wss-port", valueName: "port", kind: .port, help: "Running Kamailio: its WSS port."),
                    .value("ca-file", valueName: "file", help: "Running Kamailio: CA of its certificate."),
                    .value("gateway-http-port", valueName: "port", kind: .port,
                           help: "Use a running astra-wakegw: its HTTP port."),
                    .value("apns-device-port", valueName: "port", kind: .port,
                           help: "Running astra-wakegw: its APNs device port."),
                    .value("phone-user", valueName: "user", default: "1050", help: "The phone's SIP user."),
                    .value("caller-user", valueName: "user", default: "1001", help: "The caller's SIP user."),
                    pushsimDelivery(both: false), pushsimRunSeed,
                ] + pushsimDeliveryOverrides + pushsimClient + pushsimTimelineOutput
                    + CommonOptions.diagnostics(sipTrace: true),
                examples: [
                    Example("Wake a killed phone through Kamailio and the gateway:", "astra-pushsim live killed"),
                    Example(
                        "The naive client breaks R1 and R5 for real:",
                        "astra-pushsim live killed --policy naive --format text"),
                    Example(
                        "Sealed pushes for real; the push's call ID changed on the way is ended unread:",
                        "astra-pushsim live killed --sealed --seal-fault wrong_call_id --provider-capture capture.jsonl"),
                ]),
            CommandSpec(
                name: "check",
                abstract: "Run every built-in scenario; exit 1 on any rule violation, naming the rules.",
                discussion: """
                    One "scenario" line per built-in and delivery model, then a "verdict" line with the failed \
                    scenarios and the rules broken; on failure, one stderr line names the rules. Under the \
                    field model each scenario runs --field-runs times (seed k: the k-th fuzz case seed of \
                    --seed) and its line counts runs, failed runs, outcomes and calls whose failover was \
                    excused by delivery (the push was lost or late, or the app still launching, when the ack \
                    window ran out); "first_failed_seed" replays with run NAME --delivery field --seed SEED.
                    """,
                options: [
                    pushsimPolicy, pushsimStrikeLimit, pushsimRunSeed, pushsimDelivery(both: true),
                    .value(
                        "field-runs", valueName: "n", kind: .int(1...10_000), default: "20",
                        help: "Seeds per scenario under the field delivery model."),
                ] + pushsimDeliveryOverrides + pushsimClient + CommonOptions.output
                    + CommonOptions.diagnostics(sipTrace: false),
                examples: [Example("The naive policy breaks R1, R2, R5 and R6:", "astra-pushsim check --policy naive")]),
            CommandSpec(
                name: "client",
                abstract: "Serve a shipped client policy over the client protocol on stdin/stdout.",
                discussion: """
                    The reference implementation of the client side of astra-pushsim-client/1 \
                    (docs/pushkit-emulator.md, "Bring your own client"): reads one callback line at a time \
                    and answers with one line of ops, from the policy chosen with --policy. Live mode starts \
                    it as the app's process at each launch unless --client-cmd names another; \
                    run --client-cmd 'astra-pushsim client' gives the same timeline as run --policy correct. \
                    Exit 0 at the end of input, 65 after a line it cannot read.
                    """,
                options: [pushsimPolicy] + CommonOptions.diagnostics(sipTrace: false),
                examples: [
                    Example(
                        "Judge the naive policy as a separate process:",
                        "astra-pushsim check --client-cmd 'astra-pushsim client --policy naive'")
                ]),
            CommandSpec(
                name: "fuzz",
                abstract: "Check random scenarios against the invariants.",
                discussion: """
                    Invariants: every push reported before the handler returns, at most one call per push, no \
                    ring after the caller left, failover within the bound. One "fuzz_failure" line per failing \
                    case (its scenario is fuzz:SEED for run), then a "verdict" line with the simulated event count.
                    """,
                options: [
                    pushsimSeed("Seed of the fuzz run (0…2^64−1); each failing case prints its own case seed."),
                    .value("count", valueName: "n", kind: .int(0...1_000_000), default: "1000", help: "How many scenarios to run."),
                    pushsimPolicy,
                ] + pushsimClient + CommonOptions.output + CommonOptions.diagnostics(sipTrace: false),
                examples: [Example("Run 10000 random scenarios:", "astra-pushsim fuzz --seed 7 --count 10000")]),
        ],
        exitStatuses: [
            ExitStatusDoc(.success, "No rule was violated."),
            ExitStatusDoc(.failure, "A rule was violated (the verdict names it)."),
            ExitStatusDoc(.network, "live: Kamailio, the gateway or a SIP line could not be started or reached."),
            usageStatus, softwareStatus,
        ],
        seeAlso: seeAlso(except: "astra-pushsim"))
}

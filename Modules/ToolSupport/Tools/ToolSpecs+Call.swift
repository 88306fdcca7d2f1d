extension ToolSpecs {
    /// Single-key commands on a terminal (both subcommands).
    static let callInteractiveOptions: [OptionSpec] = [
        .flag(
            "interactive",
            help: "Take single-key commands from the terminal on standard input (the default when it is one): "
                + "0-9 * # A-D send DTMF, h hangs up, H holds/resumes, s prints statistics (a stats event), q quits, "
                + "? lists the keys; a status line on standard error while the call runs."),
        .flag("no-interactive", help: "Do not read keys, even when standard input is a terminal."),
    ]

    /// Media, DTMF and security options shared by `dial` and `answer`.
    static let callMediaOptions: [OptionSpec] = [
        .value("play", valueName: "file", help: "Send this WAV file (G.711-compatible, 8 kHz mono)."),
        .value("tone", valueName: "hz", kind: .double(1...3_999), help: "Send a sine tone of this frequency."),
        .value("record", valueName: "file", help: "Record the received audio to a WAV file."),
        .flag("echo", help: "Send back the received audio."),
        .value("expect-tone", valueName: "hz", kind: .double(1...3_999),
               help: "Check that the received audio carried this tone (tone_check event; exit 1 if not)."),
        .value("expect-tone-share", valueName: "fraction", kind: .double(0...1), default: "0.5",
               help: "Share of the answered call the --expect-tone tone must fill."),
        .value("dtmf", valueName: "digits", help: "Send these DTMF digits (RFC 4733) once the call is answered."),
        .value("dtmf-after", valueName: "seconds", kind: .delay(max: 3_600), default: "0.5",
               help: "Wait this long after the answer before sending --dtmf."),
        .value("duration", valueName: "seconds", kind: .seconds(), help: "Hang up after this long in the call."),
        .value("hold-after", valueName: "seconds", kind: .delay(),
               help: "Put the call on hold (re-INVITE, sendonly) this long after the answer."),
        .value("resume-after", valueName: "seconds", kind: .delay(),
               help: "Resume a held call (re-INVITE, sendrecv) this long after the answer."),
        .value("media-address", valueName: "ipv4",
               help: "Address for RTP and the SDP c= line (default: the signalling flow's local address)."),
        .value("rtp-port", valueName: "port", kind: .port, help: "Bind RTP to this local port (default: any free port)."),
        .value("sdp-port", valueName: "port", kind: .port,
               help: "Announce this RTP port in SDP instead of the bound one (a port forward or relay in front of us)."),
        .value("rtp-timeout", valueName: "seconds", kind: .delay(), default: "30",
               help: "Hang up when no RTP arrived for this long in an active call (0: never)."),
        .value(
            "media", valueName: "profile", kind: .choice(["auto", "rtp", "webrtc"]), default: "auto",
            help: "Media profile. webrtc: UDP/TLS/RTP/SAVPF with ICE, DTLS-SRTP (a=fingerprint, a=setup:actpass), "
                + "rtcp-mux and BUNDLE; answer refuses other offers (488). rtp: RTP/AVP or RTP/SAVP only. auto: "
                + "dial offers rtp; answer follows the offer (UDP/TLS/RTP/SAVPF is answered as webrtc)."),
        .value(
            "srtp", valueName: "mode", kind: .choice(["off", "sdes", "dtls"]), default: "off",
            help: "Media encryption: sdes offers and requires SDES-SRTP (RFC 4568); dtls is --media webrtc."
        ),
        .flag("ice", help: "Same as --media webrtc (ICE comes with DTLS-SRTP, as the WebRTC profile)."),
        .value(
            "stun", valueName: "host[:port]",
            help: "STUN server (default port 3478) for ICE server-reflexive candidates (webrtc media). No trickle "
                + "ICE: the INVITE or 200 waits for the server's answer, at most --stun-timeout."),
        .value(
            "stun-timeout", valueName: "seconds", kind: .seconds(max: 10), default: "0.5",
            help: "Longest wait for --stun (and the --turn allocation) before the SDP goes out with the candidates "
                + "gathered so far."),
        .value(
            "turn", valueName: "turn:host[:port]",
            help: "TURN server (RFC 8656, UDP, default port 3478) for an ICE relayed candidate (webrtc media); "
                + "needs --turn-user and --turn-password-file. The allocation is part of gathering (--stun-timeout)."),
        .value("turn-user", valueName: "user", help: "TURN long-term credential username."),
        .value(
            "turn-password-file", valueName: "file",
            help: "Read the TURN password from the first line of this file ('-': standard input). Never printed."),
        .value(
            "ice-policy", valueName: "policy", kind: .choice(["all", "relay"]), default: "all",
            help: "ICE candidates to use: relay offers only the --turn relayed candidate, so all media goes "
                + "through the TURN server; no allocation then ends the call (exit 5). all: a failed "
                + "allocation is a turn_failed event and the call goes on with the other candidates."),
        .value(
            "ice-restart-after", valueName: "seconds", kind: .delay(),
            help: "Restart ICE (re-INVITE with a new ice-ufrag/ice-pwd, RFC 8445 §9) this long after the answer; "
                + "media stays on the old pair until the new one is nominated; DTLS is kept."),
    ]

    /// `astra-call`: place and answer calls.
    public static let call = CommandSpec(
        name: "astra-call",
        abstract: "Place and answer SIP calls from the command line.",
        discussion: """
            Registers the line first, then places (dial) or waits for (answer) one call. Events are JSON Lines: \
            registered, calling, waiting, incoming, trying, ringing, early_media, answered (codec, srtp, \
            telephone_event, media: rtp, sdes or webrtc), ice_gathered (with --stun or --turn: host, srflx, relay \
            candidate counts, waited_ms: how long the SDP waited for gathering), turn_failed (reason; with \
            --ice-policy all), ice_connected (local, remote, since_answer_ms), \
            dtls_connected (role, srtp_profile, since_answer_ms), ice_restarted (by_peer, local, remote, ms: \
            restart to the new pair), first_rtp (since_answer_ms: the first packet \
            that passed SRTP), dtmf_sent, dtmf (digit; via: rfc4733, inband or info), held (by_peer, \
            direction), resumed, tone_check (with --expect-tone), timeout (dial --timeout ran out before the \
            INVITE could go: waiting_for registration or answer, after_ms), and ended (reason: one of local_hangup, \
            remote_hangup, busy, declined, cancelled, no_answer, rtp_timeout, timeout, network_error, failed, \
            media_failed; \
            status; stats: packets_sent, \
            packets_received, packets_lost (packets that arrived while we held the call are not loss), \
            loss_percent, jitter_ms, rtt_ms, mos and r_factor (null when no audio was received), rtcp_sent, \
            rtcp_received, setup_ms, first_rtp_ms, duration_s). Plain RTP keeps RTCP on the RTP port + 1 until \
            the answer agrees to rtcp-mux (RFC 5761), so rtt_ms comes from peers that decline mux too. \
            SIGINT/SIGTERM hang up gracefully (CANCEL or BYE) before exiting.

            On a terminal (or with --format text) each event is a short sentence, the call ends with a \
            summary block (result, media, duration, packets and loss, jitter, MOS, RTT) and a failure that \
            is not the call's own end is said in words with the fix to try. JSON (piped, or --json) is unchanged.
            """,
        subcommands: [
            CommandSpec(
                name: "dial",
                abstract: "Call a target and report the call's events.",
                arguments: [
                    ArgumentSpec(
                        "target", help: "Who to call: sip:USER@DOMAIN, or a user or number in the line's domain.")
                ],
                options: CommonOptions.line + [
                    CommonOptions.insecure,
                    .value(
                        "timeout", valueName: "seconds", kind: .seconds(), default: "60",
                        help: "Bound for the whole set-up, registration included: not answered this long after "
                            + "the start, the call is cancelled, a timeout event is printed and the exit is 3.")
                ] + callMediaOptions + callInteractiveOptions + CommonOptions.output + CommonOptions.diagnostics(sipTrace: true)
                    + CommonOptions.capture + [
                    CommonOptions.seed
                ],
                examples: [
                    Example(
                        "Call, play a tone for 10 seconds, hang up:",
                        "astra-call dial --line line.json --tone 440 --duration 10 sip:1002@pbx.example.com"),
                    Example(
                        "Call with the line in a provisioning code:",
                        "astra-qr decode line.png | astra-call dial sip:1002@pbx.example.com"),
                ]),
            CommandSpec(
                name: "answer",
                abstract: "Register, wait for a call, answer it and report its events.",
                arguments: [CommonOptions.addressOfRecord()],
                options: CommonOptions.line + [
                    CommonOptions.insecure,
                    .value(
                        "after", valueName: "seconds", kind: .delay(max: 3_600), default: "0",
                        help: "Ring this long before answering."),
                    .value(
                        "reject", valueName: "status", kind: .int(400...699),
                        help: "Reject the call with this status (e.g. 486 busy, 603 decline) after --after."),
                    .value(
                        "timeout", valueName: "seconds", kind: .seconds(),
                        help: "Give up (exit 3) if no call arrives in time (default: wait until interrupted)."),
                    .flag("auto", help: "Keep answering calls until interrupted."),
                ] + callFleetOptions + callMediaOptions + callInteractiveOptions + CommonOptions.output + CommonOptions.diagnostics(sipTrace: true)
                    + CommonOptions.capture + [
                    CommonOptions.seed
                ],
                examples: [
                    Example(
                        "Answer after two seconds and echo the audio:",
                        "astra-call answer --line line.json --after 2 --echo")
                ]),
            callLoadCommand,
        ],
        exitStatuses: [
            ExitStatusDoc(.success, "The call completed as asked (answer --reject: the call was rejected with that status)."),
            ExitStatusDoc(.failure, "The call failed (the SIP status is in the ended event)."),
            ExitStatusDoc(.network, "Network error or timeout."),
            certificateStatus,
            ExitStatusDoc(
                .mediaFailed,
                "WebRTC media could not be secured: ICE failed, DTLS failed or the peer's certificate did not "
                    + "match its a=fingerprint; the call was hung up (BYE)."),
            lineUsageStatus, softwareStatus,
        ],
        seeAlso: seeAlso(except: "astra-call") + ["sipp(1)", "baresip(1)"])
}

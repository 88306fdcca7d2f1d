extension ToolSpecs {
    /// `astra-wakegw`: the push wake gateway beside Kamailio (issue 10, docs/wake-gateway.md).
    public static let wakegw = CommandSpec(
        name: "astra-wakegw",
        abstract:
            "Run the push wake gateway beside Kamailio: hold calls, push, wait for the phone, release or fail over.",
        discussion: """
            A small SIP element (UDP) that Kamailio sends every INVITE for a local user to when started with \
            KAMAILIO_WAKE_GATEWAY=IP:PORT (scripts/kamailio.sh). It runs the wake decision v2 of PushKitEmu: a \
            live registration that answers a qualify (OPTIONS) is rung at once; otherwise a VoIP push goes out \
            through the built-in APNs emulator, the phone acks with POST /api/v1/users/voip-push-ack, registers, \
            answers a qualify, and the held INVITE is released to it through Kamailio. No ack within the ack \
            window: the caller gets 480 (or the call goes to --failover-uri).

            HTTP API on --http-port: POST/DELETE /api/v1/users/voip-push-token, GET \
            /api/v1/users/voip-push-status, POST /api/v1/users/voip-push-ack. APNs device side on \
            --apns-device-port: a phone connects and sends one JSON line {"token","topic","environment"}; each \
            delivered push comes back as one JSON line. RFC 8599: a REGISTER whose Contact carries \
            pn-provider=apns;pn-prid;pn-param is used instead of the token endpoint.

            Standard output: JSON Lines events with "event" and "t" (ms since start): listening, call_held, \
            qualify, qualify_result, push_sent, ack, register_seen, released, ringing, answered, failover, \
            cancelled, cancel_sent, gone_notice, gone_notice_done, call_ended, token_registered, token_deleted, device_connected, device_disconnected. \
            Tokens appear only redacted (first 4 hex digits and the length). Runs until SIGINT or SIGTERM.
            """,
        options: [
            .value(
                "sip", valueName: "ip:port", default: "127.0.0.1:5070",
                help: "The gateway's SIP address (UDP); Kamailio's KAMAILIO_WAKE_GATEWAY."),
            .value(
                "kamailio", valueName: "ip:port", default: "127.0.0.1:5060",
                help: "Kamailio's UDP address: released INVITEs, qualifies and CANCELs go there."),
            .value(
                "http-port", valueName: "port", kind: .listenPort, default: "8088",
                help: "HTTP API port on the same address (0 = any; see the listening event)."),
            .value(
                "apns-device-port", valueName: "port", kind: .listenPort, default: "2197",
                help: "APNs emulator port phones connect to (0 = any)."),
            .value(
                "apns-delay-ms", valueName: "ms", kind: .milliseconds(0...600_000), default: "0",
                help: "APNs delivery delay (models APNs latency)."),
            .value(
                "ack-window-ms", valueName: "ms", kind: .milliseconds(1...600_000), default: "2000",
                help: "No push ack within this window: fail over."),
            .value(
                "register-wait-ms", valueName: "ms", kind: .milliseconds(1...600_000), default: "6000",
                help: "After the ack, how long to wait for the fresh REGISTER (and a qualify that answers)."),
            .value(
                "qualify-timeout-ms", valueName: "ms", kind: .milliseconds(1...60_000), default: "500",
                help: "A qualify (OPTIONS) not answered within this time counts as dead; a final non-2xx answer counts at once."),
            .value(
                "ring-timeout-ms", valueName: "ms", kind: .milliseconds(1...3_600_000), default: "32000",
                help: "A released INVITE without a final answer within this time: CANCEL and fail over."),
            .value(
                "failover-uri", valueName: "uri",
                help: "Forward the held INVITE here on failover (e.g. voicemail) instead of answering 480."),
            .flag(
                "gone-notice",
                help:
                    "A caller who hangs up after the phone's ack, before the release: send the INVITE to the freshly registered phone and CANCEL it at once, so its CallKit placeholder ends now (extension to v2; off by default)."
            ),
            .value(
                "pn-environment", valueName: "env", kind: .choice(["sandbox", "production"]), default: "sandbox",
                help: "APNs environment of RFC 8599 registrations (the Contact does not say)."),
        ] + CommonOptions.output + CommonOptions.diagnostics(sipTrace: false),
        examples: [
            Example(
                "Kamailio with the gateway on 5070, then the gateway:",
                "KAMAILIO_WAKE_GATEWAY=127.0.0.1:5070 scripts/kamailio.sh start && astra-wakegw --kamailio 127.0.0.1:5060"
            ),
            Example(
                "Register a push token:",
                #"curl -d '{"asterisk_endpoint":"1002","token":"<64 hex>","environment":"sandbox","bundle_id":"com.example.astra","platform":"ios"}' -H 'Content-Type: application/json' http://127.0.0.1:8088/api/v1/users/voip-push-token"#
            ),
        ],
        exitStatuses: [
            ExitStatusDoc(.success, "Stopped by SIGINT or SIGTERM."),
            ExitStatusDoc(.network, "A port could not be bound."),
            usageStatus, softwareStatus,
        ],
        seeAlso: ["astra-pushsim(1)", "astra-call(1)", "astra-register(1)"])
}

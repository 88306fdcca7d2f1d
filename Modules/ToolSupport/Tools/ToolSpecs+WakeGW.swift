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
            (APNs for an iOS token, FCM for an Android one, over HTTP/2 — see PUSH PROVIDERS below), the phone acks with POST /api/v1/users/voip-push-ack, registers, \
            answers a qualify, and the held INVITE is released to it through Kamailio. No ack within the ack \
            window: the caller gets 480 (or the call goes to --failover-uri).

            HTTP API on --http-host:--http-port (loopback by default; put a TLS terminator in front for a real \
            deployment): POST/DELETE /api/v1/users/voip-push-token and GET /api/v1/users/voip-push-status need \
            Authorization: Bearer <JWT> (HS256 with --jwt-hs256-secret-file, ES256/RS256 with \
            --jwt-public-key-file; claims asterisk_endpoint, role user|org_admin, org; 401 without a valid token, \
            403 for another endpoint); POST /api/v1/users/voip-push-ack needs none: its single-use push-id (128 \
            random bits behind a 64-bit selector, valid for the ack window) is the capability. At least one JWT \
            key is required; for tests and demos any 32-byte secret file will do (scripts/mint-jwt.py mints \
            tokens). SIP is accepted only from --trust sources (default: the --kamailio address); anything else \
            is dropped and counted. RFC 8599: a REGISTER whose Contact carries \
            pn-provider=apns (pn-prid the hex token, pn-param <TeamID>.<bundle>.voip) or pn-provider=fcm \
            (pn-prid the FCM registration token, pushed through FCM HTTP v1) is used instead of the token \
            endpoint.

            PUSH PROVIDERS. Pushes go over HTTP/2 (one connection per provider host, reused for every push): \
            APNs' provider API (POST /3/device/<token>, an ES256 provider token from --apns-key-file with \
            --apns-key-id and --apns-team-id, refreshed every 45 minutes; 410 and BadDeviceToken drop the token, \
            ExpiredProviderToken renews it, 429 pauses the token, 5xx is retried within half the ack window) and \
            FCM HTTP v1 (messages:send with an OAuth2 token from the --fcm-service-account assertion; a \
            high-priority data message, ttl --fcm-ttl-s). By default every provider is the built-in emulator: \
            APNs sandbox, APNs production and FCM (with its OAuth token endpoint) on --emulator-host ports \
            --apns-emulator-port, --apns-emulator-production-port and --fcm-emulator-port (TLS with ALPN h2; a \
            self-signed certificate unless --emulator-cert-file/--emulator-key-file; dev credentials are made at \
            start when no key or account is given). It answers with Apple's and Google's statuses and reasons and \
            delivers to the emulated phones on --apns-device-port: a phone connects and sends one JSON line \
            ({"token","topic","environment"} for iOS, {"platform":"android","token","package","project_id"} for \
            Android); each delivered push comes back as one JSON line. --apns-url, --apns-production-url and \
            --fcm-url point the gateway at the real hosts instead (this environment never reaches them).

            Standard output: JSON Lines events with "event" and "t" (ms since start): listening, call_held, \
            qualify, qualify_result, push_sent, ack, register_seen, released, ringing, answered, failover, \
            cancelled, cancel_sent, gone_notice, gone_notice_done, call_ended, token_registered, token_deleted, \
            device_connected, device_disconnected, auth_refused, grant_refused, push_limited, token_dropped, provider_request \
            (the emulator's view of each provider request), stats (every --stats-interval-s and \
            at the end: counters, held state, rss_kb, heap_in_use_kb, heap_trims, heap_trim_max_us). Tokens appear only redacted (first 4 hex digits and the length), push-ids only by their \
            selector; JWTs never. GET /metrics on the API listener: Prometheus text 0.0.4, or OpenMetrics 1.0 when \
            Accept asks (registrations, held calls, pushes, push-to-ring and failover histograms, auth refusals, \
            state-store latency and errors). Runs until SIGINT or SIGTERM, then drains (--drain-timeout-ms).
            """,
        options: [
            .value(
                "state", valueName: "url",
                help:
                    "Where push registrations and push limits persist: sqlite:PATH (default astra-wakegw.sqlite3 in $STATE_DIRECTORY when set, else the working directory; WAL, mode 0600), postgresql://… or postgres://… (a libpq connection URI: one database shared by several gateways; every write committed with synchronous_commit on before its 200; the password is never printed), or memory (lost at exit). A corrupt file or a file or database of a newer schema is refused (exit 64), never replaced."),
            .value(
                "sip", valueName: "ip:port", default: "127.0.0.1:5070",
                help: "The gateway's SIP address (UDP); Kamailio's KAMAILIO_WAKE_GATEWAY."),
            .value(
                "kamailio", valueName: "ip:port", default: "127.0.0.1:5060",
                help: "Kamailio's UDP address: released INVITEs, qualifies and CANCELs go there."),
            .value(
                "gateway-id", valueName: "id",
                help: "This gateway's id among several (1-16 of a-z, 0-9, _): the suffix of its push-ids, so an ack reaching another gateway is forwarded here."),
            .value(
                "peer", valueName: "id=ip:port", repeating: true,
                help: "Another gateway's id and HTTP API address (repeatable): acks for its push-ids are forwarded there and its answer relayed."),
            .value(
                "trust", valueName: "ip[:port]", repeating: true,
                help: "A source allowed to send SIP to the gateway (repeatable; default: the --kamailio address)."),
            .value(
                "http-host", valueName: "ip", default: "127.0.0.1",
                help: "HTTP API address (IPv4); loopback unless a TLS terminator or gateway host needs another."),
            .value(
                "http-port", valueName: "port", kind: .listenPort, default: "8088",
                help: "HTTP API port (0 = any; see the listening event)."),
            .value(
                "apns-device-host", valueName: "ip", default: "127.0.0.1",
                help: "Emulated push services' device port address phones connect to (IPv4)."),
            .value(
                "apns-device-port", valueName: "port", kind: .listenPort, default: "2197",
                help: "Emulated push services' device port (APNs and FCM phones; 0 = any)."),
            .value(
                "apns-url", valueName: "url",
                help: "APNs host for sandbox tokens, e.g. https://api.sandbox.push.apple.com (default: the built-in emulator)."),
            .value(
                "apns-production-url", valueName: "url",
                help: "APNs host for production tokens, e.g. https://api.push.apple.com (default: the built-in emulator)."),
            .value(
                "fcm-url", valueName: "url",
                help: "FCM HTTP v1 host, e.g. https://fcm.googleapis.com (default: the built-in emulator)."),
            .value(
                "apns-key-file", valueName: "file",
                help: "The team's APNs auth key (.p8, PEM, EC P-256); required with a real APNs host, else a dev key is made."),
            .value("apns-key-id", valueName: "kid", help: "The key's 10-character key id (the provider token's kid)."),
            .value(
                "apns-team-id", valueName: "team", default: "ASTRATEAM1",
                help: "Apple team id (the provider token's iss; the emulator checks it)."),
            .value(
                "fcm-service-account", valueName: "file",
                help: "Google service-account JSON (RS256 key, client_email, token_uri, project_id); required with a real FCM host."),
            .value(
                "provider-ca-file", valueName: "file",
                help: "PEM CA bundle for the provider hosts (default: the system's; the emulator's own certificate when every provider is emulated)."),
            .value(
                "provider-timeout-ms", valueName: "ms", kind: .milliseconds(100...60_000), default: "2000",
                help: "One provider request's limit (also bounded by the ack window)."),
            .value(
                "fcm-ttl-s", valueName: "s", kind: .int(0...2_419_200), default: "0",
                help: "ttl of FCM data messages (0 = deliver now or drop, as apns-expiration: 0)."),
            .value(
                "emulator-host", valueName: "ip", default: "127.0.0.1",
                help: "Address of the emulator's provider listeners (IPv4)."),
            .value(
                "apns-emulator-port", valueName: "port", kind: .listenPort, default: "2196",
                help: "Emulated APNs sandbox host (HTTP/2 over TLS; 0 = any)."),
            .value(
                "apns-emulator-production-port", valueName: "port", kind: .listenPort, default: "2198",
                help: "Emulated APNs production host (0 = any)."),
            .value(
                "fcm-emulator-port", valueName: "port", kind: .listenPort, default: "2199",
                help: "Emulated FCM HTTP v1 host with its OAuth2 token endpoint /token (0 = any)."),
            .value(
                "provider-capture", valueName: "file",
                help:
                    "Write every push request the emulator accepted to this file (created mode 0600, checked at start: exit 64 when it cannot be written), one JSON object a line: provider (apns|fcm), path, headers, body, bytes (the body's length as sent): what Apple or Google would have received, with the authorization header and the device token redacted."),
            .value(
                "emulator-cert-file", valueName: "file",
                help: "PEM certificate chain for the emulator's listeners (with --emulator-key-file; default: self-signed at start)."),
            .value("emulator-key-file", valueName: "file", help: "PEM private key of --emulator-cert-file."),
            .value(
                "jwt-hs256-secret-file", valueName: "file",
                help: "Accept HS256 bearer tokens signed with this secret (the file's bytes, one trailing newline dropped; at least 32)."),
            .value(
                "jwt-public-key-file", valueName: "file",
                help: "Accept bearer tokens signed by this PEM public key: EC P-256 = ES256, RSA >= 2048 bits = RS256."),
            .value("jwt-issuer", valueName: "iss", help: "Bearer tokens must carry this iss."),
            .value("jwt-audience", valueName: "aud", help: "Bearer tokens' aud must name this."),
            .value("jwt-org", valueName: "org", help: "Bearer tokens' org claim must be this."),
            .value(
                "jwt-clock-skew-s", valueName: "s", kind: .int(0...300), default: "60",
                help: "Clock skew allowed on exp, nbf and iat."),
            .value(
                "jwt-max-lifetime-s", valueName: "s", kind: .int(60...604_800), default: "86400",
                help: "Longest token lifetime accepted (exp - iat)."),
            .value(
                "push-burst", valueName: "n", kind: .int(1...1_000), default: "5",
                help: "Per-user push cap: pushes allowed back to back."),
            .value(
                "push-per-minute", valueName: "n", kind: .int(1...60_000), default: "10",
                help: "Per-user push cap: sustained pushes per minute; over it the call fails over."),
            .value(
                "apns-backoff-ms", valueName: "ms", kind: .milliseconds(0...3_600_000), default: "60000",
                help: "After APNs answers 429 for a device token, no push to it for this long."),
            .value(
                "http-max-connections", valueName: "n", kind: .int(1...65_536), default: "1024",
                help: "Open API connections at most; over it the quietest one is closed."),
            .value(
                "http-header-timeout-ms", valueName: "ms", kind: .milliseconds(10...600_000), default: "10000",
                help: "A started request must be complete within this (408 and close)."),
            .value(
                "http-idle-timeout-ms", valueName: "ms", kind: .milliseconds(10...3_600_000), default: "30000",
                help: "An API connection with no request in progress is closed after this long."),
            .value(
                "apns-device-max-connections", valueName: "n", kind: .int(1...65_536), default: "4096",
                help: "Open device connections at most; over it the quietest one is closed."),
            .value(
                "apns-hello-timeout-ms", valueName: "ms", kind: .milliseconds(10...600_000), default: "5000",
                help: "A device connection must send its hello within this."),
            .value(
                "sip-t1-ms", valueName: "ms", kind: .milliseconds(10...5_000), default: "500",
                help: "RFC 3261 T1 (retransmissions from T1 to 8*T1; a finished call is freed after 64*T1)."),
            .value(
                "stats-interval-s", valueName: "s", kind: .int(0...86_400), default: "60",
                help: "Print a stats event (counters, held state, RSS) this often; 0 = only at the end."),
            .value(
                "drain-timeout-ms", valueName: "ms", kind: .milliseconds(0...600_000), default: "10000",
                help: "On SIGTERM/SIGINT: refuse new INVITEs (503), give held calls this long to finish, answer the rest 503, exit."),
            .value(
                "heap-trim-interval-s", valueName: "s", kind: .int(0...86_400), default: "10",
                help: "Give freed heap pages back to the system this often (glibc malloc_trim); 0 = never."),
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
                "sealed", valueName: "mode", kind: .choice(["required", "optional", "off"]), default: "optional",
                help:
                    "Sealed push: a registration that brings device_key, grant and call_key (token API) or pn-astra-device-key, pn-astra-grant and pn-astra-call-key (RFC 8599) gets pushes whose caller is sealed with AES-256-GCM under its call key; its grant must be ES256, signed by the endpoint's device key, name this gateway (--gateway-id, else astra-wakegw), be unexpired (60 s skew) and last at most 15 days, else 403 with the reason. required: a registration without them is refused and never pushed in clear; optional: it gets clear pushes; off: the fields are ignored."),
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
                "A dev secret, and a token for user 1002 valid one hour (scripts/mint-jwt.py):",
                #"openssl rand -hex 32 > dev.key && astra-wakegw --jwt-hs256-secret-file dev.key & T=$(scripts/mint-jwt.py HS256 dev.key "{\"asterisk_endpoint\":\"1002\",\"exp\":$(($(date +%s)+3600))}")"#
            ),
            Example(
                "Push to Apple's sandbox for real (needs the network this environment does not have):",
                "astra-wakegw --jwt-hs256-secret-file dev.key --apns-url https://api.sandbox.push.apple.com --apns-key-file AuthKey_ABC123DEFG.p8 --apns-key-id ABC123DEFG --apns-team-id DEF123GHIJ"
            ),
            Example(
                "A VoIP push to the emulator with curl (token from the listening event's ports; $P = a provider token):",
                #"curl --http2 --cacert emu.pem -H "authorization: bearer $P" -H 'apns-push-type: voip' -H 'apns-topic: com.example.astra.voip' -d '{"aps":{}}' https://127.0.0.1:2196/3/device/<64 hex>"#
            ),
            Example(
                "Register a push token with it:",
                #"curl -H "Authorization: Bearer $T" -H 'Content-Type: application/json' -d '{"asterisk_endpoint":"1002","token":"<64 hex>","environment":"sandbox","bundle_id":"com.example.astra","platform":"ios"}' http://127.0.0.1:8088/api/v1/users/voip-push-token"#
            ),
        ],
        exitStatuses: [
            ExitStatusDoc(.success, "Stopped by SIGINT or SIGTERM."),
            ExitStatusDoc(.network, "A port could not be bound, or the PostgreSQL server of --state could not be reached."),
            ExitStatusDoc(
                .usage,
                "Bad arguments, no JWT key, a key, certificate or service-account file that is unreadable or unusable, a real provider host without its credentials, a --state that cannot be used (not an astra-wakegw state file, corrupt, a newer schema, in use by another gateway, a database of a newer schema)."),
            softwareStatus,
        ],
        seeAlso: ["astra-pushsim(1)", "astra-call(1)", "astra-register(1)"])
}

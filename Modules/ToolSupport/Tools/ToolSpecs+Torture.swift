extension ToolSpecs {
    /// `astra-torture`: the RFC 4475 and RFC 5118 torture messages against a live server, judged.
    public static let torture = CommandSpec(
        name: "astra-torture",
        abstract: "Send the RFC 4475 and RFC 5118 torture messages to a live SIP server and judge each answer.",
        discussion: """
            Sends every torture message of RFC 4475 (49: all of its archive but 'test', which no section \
            describes) and of RFC 5118 (12 IPv6 messages, in wire form: CRLF line ends, closed header section, \
            Content-Length of the carried body) to TARGET, byte for byte, and judges what comes back against an \
            oracle taken from each message's section: a valid request is handled and never answered 400; an \
            invalid one gets 400 (505 for badvers, 501 or 400 for mismatch02; where its section lets a liberal \
            receiver accept it, any answer); the responses (unreason, noreason, scalarlg, bigcode, bcast) get \
            nothing back; over a stream, clerr, ncl and mcl01 end with the server closing the connection; the \
            RFC 4475 §3.3 messages get 416, 420 with Unsupported, 415, 401, 483, 406… (the oracle judges a proxy \
            and registrar).

            Only declared fields change, on the raw bytes, and every change is printed: a request's first Via \
            sent-by becomes this socket's address (the answer is sent there) and its From tag gets a per-run \
            suffix (a second run is a new request, not a merged one). The Request-URI and every other octet \
            are left as the RFC has them; responses are sent untouched.

            An OPTIONS before and after every message tells a wrong answer from a server that stopped \
            answering: when one gets no answer within --timeout the run ends there, naming the message after \
            which the server went silent (exit 3). Each message waits at most --wait for its answers (a final \
            answer ends the wait early, unless the message expects silence or a close). Over TCP, TLS, WS and \
            WSS each message gets its own connection, so a message that leaves the server's framer waiting \
            (clerr) cannot swallow the next one.

            stdout: a 'message' event per message (name, rfc, title, transport, bytes, changes, expected, \
            observed, answers, closed, verdict match|mismatch, standing match|known|regression, alive_after, \
            reason) and a 'summary' per transport (messages, sent, matched, known, regressions, server_alive, \
            stopped_after, stop_reason). 'observed' is the outcome: the status codes in the order they came, \
            '+closed' when the server closed the connection, 'none' for silence. --baseline FILE names the \
            outcomes a known server gives; a mismatch with the oracle that equals the baseline is 'known', not a \
            regression. --write-baseline FILE records this run's outcomes.
            """,
        arguments: [
            ArgumentSpec(
                "target", arity: .optional,
                help: "The server: HOST[:PORT], [IPv6]:PORT, or sip:HOST[:PORT][;transport=…] / sips:… "
                    + "(port by transport when absent: 5060, 5061, 80, 443).")
        ],
        options: [
            .value(
                "transport", valueName: "list",
                help: "udp, tcp, tls, ws or wss; a comma-separated list runs each in turn (default: udp, or the "
                    + "target URI's transport)."),
            .value(
                "only", valueName: "names",
                help: "Send only these messages (comma-separated archive names, e.g. "
                    + "wsinv,badvers)."),
            .flag("list", help: "Print the oracle (every message with its RFC section and expectation) and exit."),
            .value(
                "wait", valueName: "ms", kind: .milliseconds(10...60_000), default: "1000",
                help: "Wait this long for the answers to each message."),
            .value(
                "timeout", valueName: "ms", kind: .milliseconds(10...60_000), default: "2000",
                help: "An OPTIONS unanswered this long means the server stopped answering (exit 3)."),
            .value(
                "baseline", valueName: "file",
                help: "The outcomes a known server gives (JSON); a deviation recorded there is no regression."),
            .value("write-baseline", valueName: "file", help: "Write this run's outcomes as a baseline file."),
            .value(
                "server-name", valueName: "text",
                help: "With --write-baseline: the server the baseline describes (e.g. 'Kamailio 5.6')."),
            .value("junit", valueName: "file", help: "Write JUnit XML: a test case per message, regressions failed."),
            .value(
                CommonOptions.Key.wsPath, valueName: "path", help: "WebSocket resource path for ws/wss (default: /ws)."),
            .value(
                CommonOptions.Key.caFile, valueName: "file", help: "PEM file of trusted CA certificates for tls/wss."),
            CommonOptions.seed,
        ] + CommonOptions.output + CommonOptions.diagnostics(sipTrace: true) + CommonOptions.capture,
        examples: [
            Example("Every message over UDP, then over TCP:", "astra-torture --transport udp,tcp 127.0.0.1:5060"),
            Example(
                "Hold a server to what it answered last time, with a JUnit report:",
                "astra-torture --baseline pbx.json --junit torture.xml sip:pbx.example.net"),
            Example("Record that baseline:", "astra-torture --write-baseline pbx.json sip:pbx.example.net"),
            Example(
                "Two messages over TLS, with a pcap:",
                "astra-torture --transport tls --only bext01,badvers "
                    + "--ca-file ca.pem --pcap torture.pcap sips:pbx.example.net"),
        ],
        exitStatuses: [
            ExitStatusDoc(.success, "Every message matched the oracle, or the baseline."),
            ExitStatusDoc(.failure, "A regression: a message matched neither the oracle nor the baseline."),
            ExitStatusDoc(
                .network,
                "The server stopped answering (the summary names the message after which), or could not "
                    + "be reached."),
            certificateStatus, usageStatus, softwareStatus,
        ],
        seeAlso: seeAlso(except: "astra-torture") + ["sipsak(1)", "sipp(1)"])
}

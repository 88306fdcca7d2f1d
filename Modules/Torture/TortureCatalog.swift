/// The oracle: every RFC 4475 message (Appendix A, all but `test`, which no section describes)
/// and every RFC 5118 message, with its section and the handling the section asks of a proxy
/// and registrar (the server a PBX operator runs). Where a section allows a liberal receiver
/// to accept an invalid message, either answer matches (``TortureExpectation/answered``).
public enum TortureCatalog {
    /// In RFC order: RFC 4475 §3.1.1 … §3.4.1, then RFC 5118 §4.1 … §4.10.
    public static let all: [TortureCase] = rfc4475 + rfc5118

    /// The case named `name` (an archive file name without `.dat`).
    public static func named(_ name: String) -> TortureCase? { all.first { $0.name == name } }

    static let rfc4475: [TortureCase] = [
        // §3.1.1 Valid messages: a parser must accept them.
        .init("wsinv", .rfc4475, "3.1.1.1", "A Short Tortuous INVITE", .handled, note: "process normally"),
        .init(
            "intmeth", .rfc4475, "3.1.1.2", "Wide Range of Valid Characters", .handled,
            note: "a proxy forwards it (or 404); an endpoint answers 501"),
        .init("esc01", .rfc4475, "3.1.1.3", "Valid Use of the % Escaping Mechanism", .handled, note: "accept"),
        .init("escnull", .rfc4475, "3.1.1.4", "Escaped Nulls in URIs", .handled, note: "accept"),
        .init(
            "esc02", .rfc4475, "3.1.1.5", "Use of % When It Is Not an Escape", .handled,
            note: "RE%47IST%45R is an unknown method, not REGISTER: an endpoint answers 501"),
        .init(
            "lwsdisp", .rfc4475, "3.1.1.6", "Message with No LWS between Display Name and <", .handled,
            note: "accept"),
        .init("longreq", .rfc4475, "3.1.1.7", "Long Values in Header Fields", .handled, note: "accept"),
        .init(
            "dblreq", .rfc4475, "3.1.1.8", "Extra Trailing Octets in a UDP Datagram", .handled,
            note: "answer the REGISTER, ignore the trailing octets"),
        .init(
            "semiuri", .rfc4475, "3.1.1.9", "Semicolon-Separated Parameters in URI User Part", .handled,
            note: "accept"),
        .init("transports", .rfc4475, "3.1.1.10", "Varied and Unknown Transport Types", .handled, note: "accept"),
        .init("mpart01", .rfc4475, "3.1.1.11", "Multipart MIME Message", .handled, note: "accept"),
        .init(
            "unreason", .rfc4475, "3.1.1.12", "Unusual Reason Phrase", isResponse: true, .dropped,
            note: "a response: accepted, nothing sent back"),
        .init(
            "noreason", .rfc4475, "3.1.1.13", "Empty Reason Phrase", isResponse: true, .dropped,
            note: "a response: accepted, nothing sent back"),
        // §3.1.2 Invalid messages.
        .init(
            "badinv01", .rfc4475, "3.1.2.1", "Extraneous Header Field Separators", .status([400]),
            note: "should respond 400"),
        .init(
            "clerr", .rfc4475, "3.1.2.2", "Content Length Larger Than Message", .status([400]), stream: .closed,
            note: "UDP: 400; a stream waits for the rest, then closes"),
        .init(
            "ncl", .rfc4475, "3.1.2.3", "Negative Content-Length", .error, stream: .closed,
            note: "an error; over TCP the framing error closes the connection"),
        .init(
            "scalar02", .rfc4475, "3.1.2.4", "Request Scalar Fields with Overlarge Values", .status([400]),
            note: "400 (the CSeq number is too large)"),
        .init(
            "scalarlg", .rfc4475, "3.1.2.5", "Response Scalar Fields with Overlarge Values", isResponse: true,
            .dropped, note: "a response: dropped"),
        .init(
            "quotbal", .rfc4475, "3.1.2.6", "Unterminated Quoted String in Display Name", .answered,
            note: "400, or infer the closing quote"),
        .init(
            "ltgtruri", .rfc4475, "3.1.2.7", "<> Enclosing Request-URI", .answered,
            note: "400, or ignore the brackets (never forward them)"),
        .init(
            "lwsruri", .rfc4475, "3.1.2.8", "Malformed SIP Request-URI (embedded LWS)", .answered,
            note: "400, or ignore the LWS where unambiguous"),
        .init(
            "lwsstart", .rfc4475, "3.1.2.9", "Multiple SP Separating Request-Line Elements", .answered,
            note: "reject as malformed, or ignore the extra SP"),
        .init(
            "trws", .rfc4475, "3.1.2.10", "SP Characters at End of Request-Line", .answered,
            note: "reject as malformed, or ignore the trailing SP"),
        .init(
            "escruri", .rfc4475, "3.1.2.11", "Escaped Headers in SIP Request-URI", .answered,
            note: "400, or ignore the escaped headers (never make them real ones)"),
        .init(
            "baddate", .rfc4475, "3.1.2.12", "Invalid Time Zone in Date Header Field", .answered,
            note: "may reject; should not unless Date matters"),
        .init(
            "regbadct", .rfc4475, "3.1.2.13", "Failure to Enclose name-addr URI in <>", .answered,
            note: "400, or infer the <>"),
        .init(
            "badaspec", .rfc4475, "3.1.2.14", "Spaces within addr-spec", .answered,
            note: "400, or ignore the spaces"),
        .init(
            "baddn", .rfc4475, "3.1.2.15", "Non-token Characters in Display Name", .answered,
            note: "400, or infer the quotes"),
        .init(
            "badvers", .rfc4475, "3.1.2.16", "Unknown Protocol Version", .status([505]),
            note: "505 Version Not Supported"),
        .init(
            "mismatch01", .rfc4475, "3.1.2.17", "Start Line and CSeq Method Mismatch", .status([400]),
            note: "400"),
        .init(
            "mismatch02", .rfc4475, "3.1.2.18", "Unknown Method with CSeq Method Mismatch", .status([501, 400]),
            note: "501 (400 acceptable)"),
        .init(
            "bigcode", .rfc4475, "3.1.2.19", "Overlarge Response Code", isResponse: true, .dropped,
            note: "a response: dropped"),
        // §3.2 Transaction identifier.
        .init(
            "badbranch", .rfc4475, "3.2.1", "Missing Transaction Identifier", .answered,
            note: "400, or fall back to RFC 2543 matching; the parser must not break"),
        // §3.3 Application-layer semantics.
        .init("insuf", .rfc4475, "3.3.1", "Missing Required Header Fields", .status([400]), note: "400"),
        .init(
            "unkscm", .rfc4475, "3.3.2", "Request-URI with Unknown Scheme", .status([416]),
            note: "416 Unsupported URI Scheme"),
        .init(
            "novelsc", .rfc4475, "3.3.3", "Request-URI with Known but Atypical Scheme", .status([416, 404]),
            note: "416, or 404 for a scheme it does not serve"),
        .init(
            "unksm2", .rfc4475, "3.3.4", "Unknown URI Schemes in Header Fields", .answered,
            note: "a proxy routes it; a registrar answers 400 (To is not a SIP AOR)"),
        .init(
            "bext01", .rfc4475, "3.3.5", "Proxy-Require and Require", .status([420], header: "Unsupported"),
            note: "420 Bad Extension listing the option tags in Unsupported"),
        .init(
            "invut", .rfc4475, "3.3.6", "Unknown Content-Type", .status([415]),
            note: "415 Unsupported Media Type (a proxy forwards it)"),
        .init(
            "regaut01", .rfc4475, "3.3.7", "Unknown Authorization Scheme", .status([401]),
            note: "a registrar requiring authentication: 401 with a scheme it knows"),
        .init(
            "multi01", .rfc4475, "3.3.8", "Multiple Values in Single Value Required Fields", .status([400]),
            note: "400"),
        .init(
            "mcl01", .rfc4475, "3.3.9", "Multiple Content-Length Values", .error, stream: .closed,
            note: "an error; over TCP the framing error closes the connection"),
        .init(
            "bcast", .rfc4475, "3.3.10", "200 OK Response with Broadcast Via Header Field Value",
            isResponse: true, .dropped, note: "a response: dropped, never forwarded to 255.255.255.255"),
        .init(
            "zeromf", .rfc4475, "3.3.11", "Max-Forwards of Zero", .status([483]),
            note: "a proxy answers 483 Too Many Hops"),
        .init(
            "cparam01", .rfc4475, "3.3.12", "REGISTER with a Contact Header Parameter", .handled,
            note: "a successful REGISTER (or a challenge)"),
        .init(
            "cparam02", .rfc4475, "3.3.13", "REGISTER with a url-parameter", .handled,
            note: "a successful REGISTER (or a challenge)"),
        .init(
            "regescrt", .rfc4475, "3.3.14", "REGISTER with a URL Escaped Header", .handled,
            note: "a successful REGISTER (or a challenge)"),
        .init(
            "sdp01", .rfc4475, "3.3.15", "Unacceptable Accept Offering", .status([406, 400]),
            note: "406 with Warning 399, or 400"),
        // §3.4 Backward compatibility.
        .init("inv2543", .rfc4475, "3.4.1", "INVITE with RFC 2543 Syntax", .handled, note: "accept"),
    ]

    static let rfc5118: [TortureCase] = [
        .init("ipv6-good", .rfc5118, "4.1", "Valid SIP Message with an IPv6 Reference", .handled, note: "accept"),
        .init(
            "ipv6-bad", .rfc5118, "4.2", "Invalid SIP Message with an IPv6 Reference", .status([400]),
            note: "400: the IPv6 reference lacks its brackets"),
        .init(
            "port-ambiguous", .rfc5118, "4.3", "Port Ambiguous in a SIP URI", .handled,
            note: "accept (the host is [2001:db8::10:5070], no port)"),
        .init("port-unambiguous", .rfc5118, "4.4", "Port Unambiguous in a SIP URI", .handled, note: "accept"),
        .init(
            "via-received-param-with-delim", .rfc5118, "4.5", "IPv6 Reference Delimiters in Via Header",
            .handled, note: "accept received with brackets"),
        .init(
            "via-received-param-no-delim", .rfc5118, "4.5", "IPv6 Reference Delimiters in Via Header",
            .handled, note: "accept received without brackets"),
        .init(
            "ipv6-in-sdp", .rfc5118, "4.6", "SIP Request with IPv6 Addresses in SDP Body", .handled,
            note: "accept"),
        .init(
            "mult-ip-in-header", .rfc5118, "4.7", "Multiple IP Addresses in SIP Headers", .handled,
            note: "accept"),
        .init("mult-ip-in-sdp", .rfc5118, "4.8", "Multiple IP Addresses in SDP", .handled, note: "accept"),
        .init("ipv4-mapped-ipv6", .rfc5118, "4.9", "IPv4-Mapped IPv6 Addresses", .handled, note: "accept"),
        .init(
            "ipv6-bug-abnf-3-colons", .rfc5118, "4.10", "IPv6 Reference Bug in RFC 3261 ABNF", .handled,
            note: "tolerate the three-colon form"),
        .init(
            "ipv6-correct-abnf-2-colons", .rfc5118, "4.10", "IPv6 Reference Bug in RFC 3261 ABNF", .handled,
            note: "accept"),
    ]
}

import Testing
import SIPCore

@Suite struct RedactionTests {
    static let r = Redaction.placeholder

    /// One case: printed by Swift Testing as its label only, so the test log (checked for
    /// secrets by scripts/check-test-secrets.sh) never shows a key or password in clear.
    struct Case: CustomTestStringConvertible, Sendable {
        let input: String
        let expected: String
        let index: Int
        var testDescription: String { "case \(index)" }
    }

    static let table: [(String, String)] = [
        ("password=hunter2 user=alice", "password=\(r) user=alice"),
        ("--password hunter2", "--password hunter2"),  // a bare word is not recognisable as a secret
        ("Password: s3cr3t", "Password: \(r)"),
        (#"{"user":"alice","password":"p\"w","domain":"x"}"#, #"{"user":"alice","password":"\#(r)","domain":"x"}"#),
        (#"{"push_token":"abcdef0123","token": "zz"}"#, #"{"push_token":"\#(r)","token": "\#(r)"}"#),
        (#"{"call_key":12345}"#, #"{"call_key":"\#(r)"}"#),
        ("secret=abc&next=1", "secret=\(r)&next=1"),
        ("monkey=banana", "monkey=banana"),
        (
            #"Authorization: Digest username="alice", realm="pbx", nonce="abc", uri="sip:pbx", response="6629fae49393a05397450978507c4ef1", algorithm=MD5"#,
            #"Authorization: Digest username="alice", realm="pbx", nonce="abc", uri="sip:pbx", response="\#(r)", algorithm=MD5"#
        ),
        (
            #"Proxy-Authorization: Digest username="bob",response=6629fae49393a05397450978507c4ef1"#,
            #"Proxy-Authorization: Digest username="bob",response=\#(r)"#
        ),
        ("first response=12ms", "first response=12ms"),
        ("response=12345678ms", "response=12345678ms"),
        ("Bearer token", "Bearer token"),
        ("Authorization: Bearer eyJhbGciOi.xyz-_", "Authorization: Bearer \(r)"),
        (
            "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR|2^20|1:32",
            "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(r)|2^20|1:32"
        ),
        ("a=ice-pwd:asd88fgpdd777uzjYhagZg", "a=ice-pwd:\(r)"),
        (
            "Contact: <sip:alice@10.0.0.1;pn-provider=apns;pn-prid=00fc13adff78512;pn-param=TEAM.com.example.voip>",
            "Contact: <sip:alice@10.0.0.1;pn-provider=apns;pn-prid=\(r);pn-param=TEAM.com.example.voip>"
        ),
        ("sip:alice:hunter2@pbx.example.com", "sip:alice:\(r)@pbx.example.com"),
        ("wss://u:pw@ws.example.com/ws", "wss://u:\(r)@ws.example.com/ws"),
        ("--state postgresql://gw:pw@db.example.com/astra", "--state postgresql://gw:\(r)@db.example.com/astra"),
        ("postgres://gw:pw@/astra?host=/run/pg", "postgres://gw:\(r)@/astra?host=/run/pg"),
        ("turn:u:pw@turn.example.com:3478", "turn:u:\(r)@turn.example.com:3478"),
        ("turn_password=hunter2 turn-password: hunter3", "turn_password=\(r) turn-password: \(r)"),
        ("sip:alice@pbx.example.com:5061;transport=tls", "sip:alice@pbx.example.com:5061;transport=tls"),
        ("REGISTER sip:pbx.example.com SIP/2.0", "REGISTER sip:pbx.example.com SIP/2.0"),
        (
            "key file:\n-----BEGIN PRIVATE KEY-----\nMIGTAgEAMBMG\nByqGSM49AgEG\n-----END PRIVATE KEY-----\nok",
            "key file:\n-----BEGIN PRIVATE KEY-----\(r)-----END PRIVATE KEY-----\nok"
        ),
        // RFC 4568 §9.2: several keys on one a=crypto line; every one goes.
        (
            "a=crypto:1 AES_CM_128_HMAC_SHA1_32 inline:d0RmdmcmVCspeEc3QGZiNWpVLFJhQX1cfHAwJSoj|2^20|1:32;"
                + "inline:NzB4d1BINUAvLEw6UzF3WSJ+PSdFcGdUJShpX1Zj|2^20|2:32",
            "a=crypto:1 AES_CM_128_HMAC_SHA1_32 inline:\(r)|2^20|1:32;inline:\(r)|2^20|2:32"
        ),
        ("a=ice-pwd:asd88fgpdd777uzjYhagZg\r\na=ice-ufrag:8hhY\r\n", "a=ice-pwd:\(r)\r\na=ice-ufrag:8hhY\r\n"),
        (
            #"Authentication-Info: rspauth="6629fae49393a05397450978507c4ef1", nextnonce="47364c23432d2e131a5fb210812c""#,
            #"Authentication-Info: rspauth="\#(r)", nextnonce="47364c23432d2e131a5fb210812c""#
        ),
        // A challenge is not a credential (RFC 8898 §2.1: Bearer with auth-params).
        (
            #"WWW-Authenticate: Bearer realm="atlanta.example.com", scope="abc""#,
            #"WWW-Authenticate: Bearer realm="atlanta.example.com", scope="abc""#
        ),
        ("Authorization: Basic YWxpY2U6aHVudGVyMg==", "Authorization: Basic \(r)"),
        (
            "id eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiIxMDAxIn0.c2lnbmF0dXJl in a log line",
            "id \(r) in a log line"
        ),
        (#"{"firebase_token":"abc.def","org":"x"}"#, #"{"firebase_token":"\#(r)","org":"x"}"#),
        (#"{"password_sealed":"$scrypt$ln=15,r=8,p=1$abc$def"}"#, #"{"password_sealed":"\#(r)"}"#),
        ("X-Push-Token: 3f1a9b", "X-Push-Token: \(r)"),
        ("sip:[::1]:5060;transport=udp", "sip:[::1]:5060;transport=udp"),
        ("sip:alice@[::1]:5060", "sip:alice@[::1]:5060"),
        ("https://api.example.com:8443/v1?x=1", "https://api.example.com:8443/v1?x=1"),
        ("Grüße password=pässwörd Ende", "Grüße password=\(r) Ende"),
        ("-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEI", "-----BEGIN EC PRIVATE KEY-----\(r)"),
        ("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----"),
        ("", ""),
    ]

    static let cases = table.enumerated().map { Case(input: $1.0, expected: $1.1, index: $0) }

    @Test(arguments: cases)
    func redactsSecretsOnly(_ c: Case) {
        #expect(Redaction.redact(c.input) == c.expected, "case \(c.index)")
    }

    @Test func bytesAndTextAgree() {
        let text = "REGISTER sip:x SIP/2.0\r\nContact: <sip:a@b;pn-prid=00ff>\r\n\r\n"
        #expect(String(decoding: Redaction.redact(bytes: Array(text.utf8)), as: UTF8.self) == Redaction.redact(text))
    }

    @Test func untrustedTextIsOneRedactedPrintableLine() {
        let body = "error\u{1B}[31m red\u{07}\r\nAuthorization: Bearer eyJx.eyJy.sig\u{85}end"
        #expect(Redaction.untrusted(body) == "error [31m red   Authorization: Bearer \(Self.r) end")
        #expect(Redaction.untrusted(String(repeating: "x", count: 1000), limit: 10) == "xxxxxxxxxx…")
    }

    @Test func redactingTwiceChangesNothing() {
        for text in [
            #"password=x {"token":"y"} response="abc" inline:KEY"#,
            "-----BEGIN x pwd=\"a\nb\" PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----",
            "Bearer pn-prid=00ff", "ws://-key=u:pw@ws.example.com", "pwd=\"a\\\nkey=b\"",
        ] {
            let once = Redaction.redact(text)
            #expect(Redaction.redact(once) == once, "\(text.debugDescription) → \(once.debugDescription)")
        }
    }

    /// A quoted value ends at its closing quote or at the end of its line, whichever is first:
    /// neither a SIP quoted-string nor a JSON string holds a bare CR or LF, and a value running
    /// on to a quote lines later swallowed the lines between (and their line ends, on which other
    /// rules depend). What follows on the next line is scanned as its own text.
    @Test func aQuotedValueEndsWithItsLine() {
        #expect(Redaction.redact("password=\"abc\nkey=x\"") == "password=\"\(Self.r)\nkey=\(Self.r)\"")
        #expect(Redaction.redact("password=\"abc\r\nok\"") == "password=\"\(Self.r)\r\nok\"")
        #expect(Redaction.redact("password=\"ab\\\r\nok") == "password=\"\(Self.r)\r\nok")
        #expect(Redaction.redact(#"{"password":"p\"w\\","ok":1}"#) == #"{"password":"\#(Self.r)","ok":1}"#)
    }

    /// A secret right after a redacted value is judged as the text will read: the placeholder
    /// ends a word, so a PEM key glued to a digest response or an SDES key is still found (it
    /// survived the first pass before, and only a second pass removed it).
    @Test func aKeyGluedToARedactedValueIsFound() {
        let pem = "-----BEGIN PRIVATE KEY-----\nMIIBsecret\n-----END PRIVATE KEY-----"
        let redactedPEM = "-----BEGIN PRIVATE KEY-----\(Self.r)-----END PRIVATE KEY-----"
        #expect(Redaction.redact("response=0123456789abcdef" + pem) == "response=\(Self.r)" + redactedPEM)
        #expect(Redaction.redact("inline:KEY" + pem) == "inline:\(Self.r)" + redactedPEM)
    }

    /// An already redacted value is left as it is only when it is exactly the placeholder.
    @Test func onlyAWhollyRedactedValueIsSkipped() {
        let r = Self.r
        #expect(
            Redaction.redact("-----BEGIN PRIVATE KEY-----\(r)MIIB\n-----END PRIVATE KEY-----")
                == "-----BEGIN PRIVATE KEY-----\(r)-----END PRIVATE KEY-----")
        #expect(Redaction.redact("Bearer pn-prid=00ff") == "Bearer pn-prid=\(r)")
        #expect(Redaction.redact("Bearer pn-prid=\(r)") == "Bearer pn-prid=\(r)")
        #expect(Redaction.redact("ws://-key=u:pw@h") == "ws://-key=u:\(r)@h")
        #expect(Redaction.redact("ws://-key=u:\(r)@h") == "ws://-key=u:\(r)@h")
    }
}

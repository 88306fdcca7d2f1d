import Testing
import ToolSupport

@Suite struct RedactionTests {
    static let r = Redaction.placeholder

    @Test(arguments: [
        ("password=hunter2 user=alice", "password=\(r) user=alice"),
        ("--password hunter2", "--password hunter2"),  // a bare word is not recognisable as a secret
        ("Password: s3cr3t", "Password: \(r)"),
        (#"{"user":"alice","password":"p\"w","domain":"x"}"#, #"{"user":"alice","password":"\#(r)","domain":"x"}"#),
        (#"{"push_token":"abcdef0123","token": "zz"}"#, #"{"push_token":"\#(r)","token": "\#(r)"}"#),
        (#"{"call_key":12345}"#, #"{"call_key":\#(r)}"#),
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
        ("turn:u:pw@turn.example.com:3478", "turn:u:\(r)@turn.example.com:3478"),
        ("turn_password=hunter2 turn-password: hunter3", "turn_password=\(r) turn-password: \(r)"),
        ("sip:alice@pbx.example.com:5061;transport=tls", "sip:alice@pbx.example.com:5061;transport=tls"),
        ("REGISTER sip:pbx.example.com SIP/2.0", "REGISTER sip:pbx.example.com SIP/2.0"),
        (
            "key file:\n-----BEGIN PRIVATE KEY-----\nMIGTAgEAMBMG\nByqGSM49AgEG\n-----END PRIVATE KEY-----\nok",
            "key file:\n-----BEGIN PRIVATE KEY-----\(r)-----END PRIVATE KEY-----\nok"
        ),
    ])
    func redactsSecretsOnly(_ input: String, _ expected: String) {
        #expect(Redaction.redact(input) == expected)
    }

    @Test func redactingTwiceChangesNothing() {
        let once = Redaction.redact(#"password=x {"token":"y"} response="abc" inline:KEY"#)
        #expect(Redaction.redact(once) == once)
    }

    @Test func diagnosticsAreRedactedAndFilteredByLevel() {
        let sink = BufferSink()
        let quiet = Diagnostics(tool: "astra-register", level: .normal, sink: sink)
        quiet.info("hidden")
        quiet.debug("hidden")
        quiet.error("bad line: password=hunter2")
        quiet.warning("two\nlines")
        quiet.trace("not traced")
        let loud = Diagnostics(
            tool: "astra-register", level: Diagnostics.Level(verbosity: 5), sipTrace: true, sink: sink)
        loud.info("shown")
        loud.debug("also shown")
        loud.trace("REGISTER sip:x SIP/2.0\r\nAuthorization: Digest response=\"abcd\"\r\n")
        let r = Self.r
        #expect(
            sink.text
                == "astra-register: bad line: password=\(r)\n" + "astra-register: warning: two lines\n"
                + "astra-register: shown\n" + "astra-register: debug: also shown\n"
                + "REGISTER sip:x SIP/2.0\r\nAuthorization: Digest response=\"\(r)\"\r\n")
    }
}

import SIPCore
import Testing

/// The shared line model (docs/line.md): parsing, defaults, validation errors, redaction, AORs.
@Suite struct LineTests {
    static let full =
        #"{"v":1,"display_name":"Alice","user":"1001","auth_user":"a1001","password":"s3cr3t-PW","#
        + #""domain":"example.com","server":"pbx.example.com:8089","transport":"wss","ws_path":"/sip","#
        + #""outbound_proxy":"proxy.example.com:5070","expires":600,"ca_file":"/etc/ca.pem","tls_verify":true,"#
        + #""tls_server_name":"pbx.example.com","push_provider":"apns","push_token":"TOKEN-123","push_topic":"com.x"}"#

    @Test func parsesEveryFieldAndWritesTheSameBytes() throws {
        let line = try Line(json: Self.full)
        #expect(line.user == "1001")
        #expect(line.effectiveAuthUser == "a1001")
        #expect(line.transport == .wss)
        #expect(line.effectiveServer == LineServer(host: "pbx.example.com", port: 8089))
        #expect(line.effectiveWSPath == "/sip")
        #expect(line.outboundProxy == LineServer(host: "proxy.example.com", port: 5070))
        #expect(line.expires == 600)
        #expect(line.jsonString() == Self.full)
        #expect(try Line(json: line.jsonString()) == line)
    }

    @Test(arguments: [
        ("udp", 5060), ("tcp", 5060), ("tls", 5061), ("ws", 80), ("wss", 443), ("WSS", 443),
    ])
    func defaultPortByTransport(transport: String, port: Int) throws {
        let line = try Line(json: #"{"v":1,"user":"alice","domain":"example.com","transport":"\#(transport)"}"#)
        #expect(line.effectivePort == port)
        #expect(line.effectiveServerHost == "example.com")
        #expect(line.effectiveAuthUser == "alice")
        #expect(line.effectiveExpires == 3600)
        #expect(line.effectiveWSPath == (line.transport.isWebSocket ? "/ws" : nil))
    }

    @Test func minimalLineDefaultsToUDP() throws {
        let line = try Line(json: #"{"user":"alice","domain":"example.com"}"#)
        #expect(line.version == 1)
        #expect(line.transport == .udp)
        #expect(line.jsonString() == #"{"v":1,"user":"alice","domain":"example.com","transport":"udp"}"#)
    }

    /// Table of bad lines → the precise error code and the field it names.
    @Test(arguments: [
        (#"{"domain":"example.com"}"#, LineError.Code.missingUser, "user"),
        (#"{"user":"","domain":"example.com"}"#, .missingUser, "user"),
        (#"{"user":"alice"}"#, .missingDomain, "domain"),
        (#"{"user":"alice","domain":"example.com","transport":"sctp"}"#, .badTransport, "transport"),
        (#"{"user":"alice","domain":"example.com","server":"pbx:70000"}"#, .badPort, "server"),
        (#"{"user":"alice","domain":"example.com","server":"pbx:0"}"#, .badPort, "server"),
        (#"{"user":"alice","domain":"example.com","server":"pbx:http"}"#, .badPort, "server"),
        (#"{"user":"alice","domain":"example.com","server":"::1"}"#, .badServer, "server"),
        (#"{"user":"alice","domain":"example.com","outbound_proxy":"p:99999"}"#, .badPort, "outbound_proxy"),
        (#"{"user":"alice","domain":"example.com","expires":0}"#, .badExpires, "expires"),
        (#"{"user":"alice","domain":"example.com","expires":1.5}"#, .badExpires, "expires"),
        (#"{"user":"alice","domain":"example.com","ws_path":"ws"}"#, .badWSPath, "ws_path"),
        (
            #"{"user":"alice","domain":"example.com","password":"a","password_sealed":"b"}"#, .conflictingPassword,
            "password"
        ),
        (#"{"v":2,"user":"alice","domain":"example.com"}"#, .unsupportedVersion, "v"),
        (#"{"user":42,"domain":"example.com"}"#, .wrongType, "user"),
        (#"{"user":"al ice","domain":"example.com"}"#, .badIdentity, "user"),
        (#"{"user":"alice","domain":"example.com:5060"}"#, .badIdentity, "domain"),
    ])
    func validationErrorsArePrecise(json: String, code: LineError.Code, field: String) {
        #expect {
            try Line(json: json)
        } throws: { error in
            guard let e = error as? LineError else { return false }
            return e.code == code && e.field == field && !e.description.contains("\n")
        }
    }

    @Test func invalidJSONNamesTheByteOffset() {
        #expect {
            try Line(json: #"{"user":"alice",}"#)
        } throws: { error in
            (error as? LineError)?.code == .invalidJSON && "\(error)".contains("byte 16")
        }
        #expect(throws: LineError(.invalidJSON, "")) { try Line(json: "[1,2]") }
        #expect(throws: LineError(.invalidJSON, "")) { try Line(json: "") }
    }

    @Test func neverPrintsThePasswordOrPushToken() throws {
        let line = try Line(json: Self.full)
        var dumped = ""
        dump(line, to: &dumped)
        let texts = [
            line.description, "\(line)", String(describing: line), String(reflecting: line), dumped,
            line.jsonString(redacted: true),
        ]
        for text in texts {
            #expect(!text.contains("s3cr3t-PW"))
            #expect(!text.contains("TOKEN-123"))
        }
        #expect(line.description.contains("sip:1001@example.com"))
        #expect(line.description.contains("<redacted>"))
        let error = LineError(.badPort, field: "server", "port 70000 out of range 1…65535")
        #expect(error.description == "line: port 70000 out of range 1…65535 (server)")
    }

    @Test(arguments: [
        ("sip:alice@example.com", "alice", "example.com", LineTransport.udp, nil as Int?),
        ("sips:bob@Example.COM", "bob", "example.com", .tls, nil),
        ("sip:1001@pbx.example.com:5070", "1001", "pbx.example.com", .udp, 5070),
        ("sip:1001@pbx.example.com;transport=tcp", "1001", "pbx.example.com", .tcp, nil),
        ("SIP:a%2Bb@[::1]:5062", "a+b", "::1", .udp, 5062),
    ])
    func addressOfRecordMakesALine(text: String, user: String, domain: String, transport: LineTransport, port: Int?)
        throws
    {
        let line = try Line(addressOfRecord: text)
        #expect(line.user == user)
        #expect(line.domain == domain)
        #expect(line.transport == transport)
        #expect(line.server?.port == port)
    }

    @Test func addressOfRecordErrors() {
        #expect(throws: LineError(.missingUser, "")) { try Line(addressOfRecord: "sip:example.com") }
        #expect(throws: LineError(.badAddressOfRecord, "")) { try Line(addressOfRecord: "tel:+15551234") }
        #expect(throws: LineError(.badPort, "")) { try Line(addressOfRecord: "sip:a@example.com:99999") }
        #expect(throws: LineError(.badTransport, "")) { try Line(addressOfRecord: "sip:a@example.com;transport=x") }
        let aor = LineAddressOfRecord(user: "a b", domain: "example.com")
        #expect(aor.description == "sip:a%20b@example.com")
    }

    @Test func aorWithPasswordKeepsItButNeverShowsIt() throws {
        let line = try Line(addressOfRecord: "sip:1001:pw-secret@pbx.example.com")
        #expect(line.password == "pw-secret")
        #expect(!line.description.contains("pw-secret"))
    }

    @Test func jsonEscapesAndUnicodeRoundTrip() throws {
        let line = Line(displayName: "Zoë \"Z\" \\ /", user: "zoë", domain: "example.com")
        let text = line.jsonString()
        #expect(text.contains(#"\"Z\""#) && text.contains(#"\\"#))
        #expect(try Line(json: text) == line)
        #expect(try Line(json: #"{"user":"\u00e9\ud83d\ude00","domain":"x.org"}"#).user == "é😀")
        // The writer escapes a control character; the reader refuses it (it would reach a header).
        let control = Line(displayName: "Zoë \u{1}", user: "zoë", domain: "example.com").jsonString()
        #expect(control.contains(#"\u0001"#))
        #expect(throws: LineError(.invalidCharacter, "")) { try Line(json: control) }
    }

    /// Strings that end up in protocol headers are checked at the model (THREATS.md): a flag,
    /// line JSON and a QR code all meet this one check.
    @Test(arguments: [
        (#"{"user":"1001","domain":"pbx","ws_path":"/ws\r\nX-Evil: 1"}"#, LineError.Code.badWSPath),
        (#"{"user":"1001","domain":"pbx","ws_path":"/ws x"}"#, .badWSPath),
        (#"{"user":"1001","domain":"pbx","ws_path":"/ws%0"}"#, .badWSPath),
        (#"{"user":"1001","domain":"pbx","display_name":"Alice\r\nVia: x"}"#, .invalidCharacter),
        (#"{"user":"1001","domain":"pbx","display_name":"A\u0000"}"#, .invalidCharacter),
        (#"{"user":"1001","domain":"pbx","display_name":"A\u0085"}"#, .invalidCharacter),
        (#"{"user":"10\n01","domain":"pbx"}"#, .badIdentity),
        (#"{"user":"1001","auth_user":"a\"b","domain":"pbx"}"#, .badIdentity),
        (#"{"user":"1001","domain":"127.0.0.1:5060"}"#, .badIdentity),
        (#"{"user":"1001","domain":"[::1]"}"#, .badIdentity),
        (#"{"user":"1001","domain":"1:2:3"}"#, .badServer),
        (#"{"user":"1001","domain":"999.1.1.1"}"#, .badServer),
        (#"{"user":"1001","domain":"pbx","server":"[12345::1]:5060"}"#, .badServer),
        (#"{"user":"1001","domain":"pbx","push_provider":"apns","push_token":"ab;cd=1"}"#, .invalidCharacter),
        (#"{"user":"1001","domain":"pbx","push_topic":"T.app>"}"#, .invalidCharacter),
        (#"{"user":"1001","domain":"pbx","push_token":""}"#, .invalidCharacter),
        (#"{"user":"1001","domain":"pbx","tls_server_name":"pbx\r\n"}"#, .invalidCharacter),
        (#"{"user":"1001","domain":"pbx","ca_file":"/etc/ca\u0000.pem"}"#, .invalidCharacter),
    ])
    func headerBoundStringsFollowTheirGrammar(_ json: String, _ code: LineError.Code) {
        #expect(throws: LineError(code, "")) { try Line(json: json) }
    }

    @Test func textFieldsHaveLengthBounds() throws {
        let long = String(repeating: "x", count: 10_000_000)
        #expect(throws: LineError(.tooLong, "")) { try Line(json: #"{"user":"1001","domain":"pbx","display_name":"\#(long)"}"#) }
        #expect(throws: LineError(.tooLong, "")) { try Line(json: #"{"user":"\#(String(long.prefix(257)))","domain":"pbx"}"#) }
        // At the bound, accepted; and the ordinary values of every field are accepted.
        let line = try Line(json: #"{"user":"1001","domain":"pbx","display_name":"\#(String(long.prefix(256)))"}"#)
        #expect(line.displayName?.utf8.count == 256)
        let ok = try Line(
            json: #"{"user":"1001","domain":"::1","ws_path":"/ws/sip?x=1&y=%2F","push_provider":"fcm","#
                + #""push_token":"cXyZ:APA91b-F_u8","push_topic":"TEAM123.com.example.voip","tls_server_name":"pbx.example.com"}"#)
        #expect(ok.wsPath == "/ws/sip?x=1&y=%2F" && ok.domain == "::1")
    }
}

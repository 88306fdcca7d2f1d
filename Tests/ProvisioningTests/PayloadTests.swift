import Provisioning
import SIPCore
import Testing

/// The QR payload forms of docs/provisioning.md: compact `astra1:`, line JSON, `sip:` URIs and
/// the legacy editor JSON.
@Suite struct PayloadTests {
    static let line = Line(
        displayName: "Alice Zoë", user: "1001", authUser: "a1001", password: "p;w%d=1",
        domain: "example.com", server: LineServer(host: "pbx.example.com", port: 8089),
        transport: .wss, wsPath: "/ws", expires: 600)

    static let fullJSON =
        #"{"v":1,"display_name":"Alice","user":"1001","auth_user":"a1001","password":"s3cr3t-PW","#
        + #""domain":"example.com","server":"pbx.example.com:8089","transport":"wss","ws_path":"/sip","#
        + #""outbound_proxy":"proxy.example.com:5070","expires":600,"ca_file":"/etc/ca.pem","tls_verify":false,"#
        + #""tls_server_name":"pbx.example.com","push_provider":"apns","push_token":"TOKEN-123","push_topic":"com.x"}"#

    @Test func compactRoundTripsEveryField() throws {
        let text = CompactPayload.encode(Self.line)
        #expect(
            text == "astra1:n=Alice Zoë;u=1001;a=a1001;p=p%3Bw%25d=1;d=example.com;s=pbx.example.com:8089;"
                + "t=wss;w=/ws;e=600")
        let (back, form) = try ProvisioningPayload.line(from: text)
        #expect(back == Self.line)
        #expect(form == .compact)
        let full = try Line(json: Self.fullJSON)
        #expect(try ProvisioningPayload.line(from: CompactPayload.encode(full)).0 == full)
    }

    @Test func compactLeavesDefaultsOutAndIgnoresUnknownKeys() throws {
        let line = Line(user: "alice", domain: "example.com")
        #expect(CompactPayload.encode(line) == "astra1:u=alice;d=example.com")
        let (back, _) = try ProvisioningPayload.line(from: "ASTRA1:u=alice;zz=future;d=example.com\n")
        #expect(back == line)
    }

    /// A code is written by someone hostile (THREATS.md): a %-escaped CR LF in `w=` would have
    /// become a header of the WebSocket upgrade (`GET /ws\r\nX-Evil: 1 HTTP/1.1`). The line
    /// model refuses it, as it refuses the same value from a flag or a file.
    @Test(arguments: [
        "astra1:u=1001;d=pbx.example.com;t=wss;w=/ws%0D%0AX-Evil:%201",
        "astra1:u=1001;d=pbx.example.com;n=Alice%0D%0AVia:%20x",
        "astra1:u=1001;d=pbx.example.com;pp=apns;pt=ab%3Bcd",
        "astra1:u=1001;d=127.0.0.1:5060",
    ])
    func headerInjectionFromACodeIsRefused(_ payload: String) {
        #expect(throws: ProvisioningError.self) { try CompactPayload.decode(payload) }
    }

    @Test func newerPayloadVersionIsRefused() {
        #expect(throws: ProvisioningError(.unsupportedPayload, "")) {
            try ProvisioningPayload.line(from: "astra2:u=alice;d=example.com")
        }
    }

    @Test func plainSIPURICodes() throws {
        let (line, form) = try ProvisioningPayload.line(from: "sip:1002@pbx.example.com")
        #expect(form == .sipURI)
        #expect(line == Line(user: "1002", domain: "pbx.example.com"))
        let (secure, _) = try ProvisioningPayload.line(from: "sips:1002@pbx.example.com:5071")
        #expect(secure.transport == .tls && secure.effectivePort == 5071)
    }

    @Test func legacyEditorCodes() throws {
        let (line, form) = try ProvisioningPayload.line(
            from: #"{"username":"4711","password":"pw","host":"pbx.example.com:5080"}"#)
        #expect(form == .legacyEditor)
        #expect(line.user == "4711" && line.password == "pw" && line.domain == "pbx.example.com")
        #expect(line.transport == .udp && line.effectivePort == 5080)
        let (split, _) = try ProvisioningPayload.line(from: #"{"username":"4711","host":"10.0.0.5","port":5062}"#)
        #expect(split.effectiveServer == LineServer(host: "10.0.0.5", port: 5062))
        #expect(throws: ProvisioningError(.invalidLine, "")) {
            try ProvisioningPayload.line(from: #"{"username":"4711","host":"pbx","port":123456}"#)
        }
    }

    @Test func lineJSONCodes() throws {
        let (line, form) = try ProvisioningPayload.line(from: Self.line.jsonString())
        #expect(form == .lineJSON && line == Self.line)
    }

    @Test(arguments: ["hello world", "https://example.com/", "{\"a\":1", "   ", "{}"])
    func textThatIsNotALine(text: String) {
        #expect {
            try ProvisioningPayload.line(from: text)
        } throws: { error in
            let e = error as! ProvisioningError
            return (e.code == .notALine || e.code == .invalidLine) && !e.description.contains("\n")
        }
    }

    @Test func invalidLineInACodeSaysWhy() {
        #expect {
            try ProvisioningPayload.line(from: "astra1:d=example.com;t=sctp")
        } throws: { error in
            let e = error as! ProvisioningError
            return e.code == .invalidLine && e.lineError?.code == .badTransport
        }
    }
}

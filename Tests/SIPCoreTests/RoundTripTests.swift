import Testing

@testable import SIPCore

@Suite("Serializer and builders")
struct RoundTripTests {
    static let accepted: [String] = VectorTests.names.filter {
        (try? SIPMessage(parsing: Vectors.bytes(Vectors.manifest.messages[$0]!.file))) != nil
    }

    @Test("parsed vectors serialize byte-for-byte", arguments: accepted)
    func byteExact(name: String) throws {
        let bytes = Vectors.bytes(Vectors.manifest.messages[name]!.file)
        let message = try SIPMessage(parsing: bytes)
        let wire = message.serialized()
        // Everything up to the end of the Content-Length body (dblreq carries a second request after it).
        #expect(wire == Array(bytes.prefix(wire.count)))
        if name != "dblreq" { #expect(wire == bytes) }
    }

    @Test("edits keep every untouched line byte-exact", arguments: accepted)
    func editKeepsOtherLines(name: String) throws {
        let bytes = Vectors.bytes(Vectors.manifest.messages[name]!.file)
        var message = try SIPMessage(parsing: bytes)
        let before = message.headers.map { Array($0.rawLineBytes) }
        var headers = message.headers
        headers.add("X-Added", "yes")
        message.headers = headers
        let again = try SIPMessage(parsing: message.serialized())
        #expect(again.headers.map { Array($0.rawLineBytes) } == before + [Array("X-Added: yes\r\n".utf8)])
        #expect(again.bodyBytes == message.bodyBytes)
    }

    @Test func buildRequest() throws {
        var headers = SIPHeaders()
        headers.add(.via, SIPVia(transport: .udp, host: "192.0.2.1", port: 5060, branch: "z9hG4bKabc").description)
        headers.add(.maxForwards, "70")
        headers.add(
            .from,
            SIPNameAddress(
                displayName: "Alice", uri: SIPURI(user: "alice", host: "example.com"),
                parameters: [SIPParameter(name: "tag", value: "1")]
            ).description)
        headers.add(.to, "<sip:bob@example.com>")
        headers.add(.callID, "c1@example.com")
        headers.add(.cseq, SIPCSeq(1, .invite).description)
        var request = SIPRequest(method: .invite, uri: SIPURI(user: "bob", host: "example.com"), headers: headers)
        request.setBody(Array("v=0\r\n".utf8), contentType: "application/sdp")
        let text = String(decoding: request.serialized(), as: UTF8.self)
        #expect(
            text == "INVITE sip:bob@example.com SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bKabc\r\nMax-Forwards: 70\r\n"
                + "From: \"Alice\" <sip:alice@example.com>;tag=1\r\nTo: <sip:bob@example.com>\r\n"
                + "Call-ID: c1@example.com\r\nCSeq: 1 INVITE\r\nContent-Length: 5\r\n"
                + "Content-Type: application/sdp\r\n\r\nv=0\r\n")
        let parsed = try #require(try SIPMessage(parsing: request.serialized()).request)
        #expect(parsed.method == .invite && parsed.bodyBytes.count == 5)
        #expect(try parsed.headers.from()?.tag == "1")
    }

    @Test func editHeaders() throws {
        var headers = SIPHeaders([
            (.via, "SIP/2.0/UDP a;branch=z9hG4bK1"), (.via, "SIP/2.0/UDP b;branch=z9hG4bK2"),
            ("X-A", "1"),
        ])
        headers.set(.via, "SIP/2.0/UDP c;branch=z9hG4bK3")
        #expect(headers.values(.via) == ["SIP/2.0/UDP c;branch=z9hG4bK3"])
        #expect(headers.first?.name == .via)
        headers.insert(.route, "<sip:p;lr>", at: 0)
        #expect(headers.map(\.name) == [.route, .via, "x-a"])
        #expect(headers.remove("x-a") == 1)
        headers.add("X-Evil", "a\r\nInjected: 1")
        #expect(headers[SIPHeaderName("X-Evil")] == "a  Injected: 1")
        #expect(!headers.contains(SIPHeaderName("Injected")))
    }

    @Test func respondToRequest() throws {
        let request = try #require(
            try SIPMessage(
                parsing: Array(
                    ("REGISTER sip:example.com SIP/2.0\r\nVia: SIP/2.0/UDP 192.0.2.1;branch=z9hG4bK1;rport\r\n"
                        + "Via: SIP/2.0/UDP 192.0.2.9;branch=z9hG4bK0\r\nFrom: <sip:a@example.com>;tag=f\r\nTo: <sip:a@example.com>\r\n"
                        + "Call-ID: x\r\nCSeq: 7 REGISTER\r\nContact: <sip:a@192.0.2.1>\r\nContent-Length: 0\r\n\r\n")
                        .utf8)
            ).request)
        var extra = SIPHeaders()
        extra.add(.wwwAuthenticate, "Digest realm=\"example.com\", nonce=\"n\"")
        let response = SIPResponse(to: request, statusCode: 401, toTag: "t1", headers: extra)
        let parsed = try #require(try SIPMessage(parsing: response.serialized()).response)
        #expect(parsed.statusCode == 401 && parsed.reasonPhrase == "Unauthorized")
        #expect(try parsed.headers.vias().count == 2)
        #expect(try parsed.headers.to()?.tag == "t1")
        #expect(try parsed.headers.cseq() == SIPCSeq(7, .register))
        #expect(!parsed.headers.contains(.contact))
        #expect(parsed.headers.values(.wwwAuthenticate).count == 1)
        #expect(try parsed.headers.contentLength() == 0)
    }

    @Test func editStartLine() throws {
        var request = try #require(
            try SIPMessage(parsing: "OPTIONS sip:a@b SIP/2.0\r\nContent-Length: 0\r\n\r\n").request)
        request.uri = SIPURI(user: "c", host: "d", port: 5080)
        #expect(
            String(decoding: request.serialized(), as: UTF8.self)
                == "OPTIONS sip:c@d:5080 SIP/2.0\r\nContent-Length: 0\r\n\r\n")
        var response = try #require(
            try SIPMessage(parsing: "SIP/2.0 180 Ringing\r\nContent-Length: 0\r\n\r\n").response)
        response.statusCode = 183
        response.reasonPhrase = "Session Progress"
        response.body = Array("abc".utf8)
        #expect(
            String(decoding: response.serialized(), as: UTF8.self)
                == "SIP/2.0 183 Session Progress\r\nContent-Length: 3\r\n\r\nabc")
    }
    /// A message keeps its received start line, Request-URI or reason phrase and body in one
    /// buffer (`MessageBytes`): replacing the body keeps the parts before it, replacing the
    /// reason phrase keeps the body, in parsed and built messages alike.
    @Test func editBodyAndReason() throws {
        func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
        var request = try #require(
            try SIPMessage(parsing: "MESSAGE sip:A@b;x SIP/2.0\r\nContent-Length: 2\r\n\r\nhi").request)
        request.body = Array("hello".utf8)
        #expect(request.rawURI == "sip:A@b;x" && request.uri.user == "A" && request.version == "SIP/2.0")
        #expect(text(request.serialized()) == "MESSAGE sip:A@b;x SIP/2.0\r\nContent-Length: 5\r\n\r\nhello")
        request.method = "INFO"
        request.body = []
        #expect(text(request.serialized()) == "INFO sip:A@b;x SIP/2.0\r\nContent-Length: 0\r\n\r\n")
        request.uri = SIPURI(user: "c", host: "d")
        request.body = Array("x".utf8)
        #expect(text(request.serialized()) == "INFO sip:c@d SIP/2.0\r\nContent-Length: 1\r\n\r\nx")

        var response = try #require(
            try SIPMessage(parsing: "SIP/2.0 486 Busy Here\r\nContent-Length: 1\r\n\r\nx").response)
        response.body = Array("yz".utf8)
        #expect(response.reasonPhrase == "Busy Here")
        #expect(text(response.serialized()) == "SIP/2.0 486 Busy Here\r\nContent-Length: 2\r\n\r\nyz")
        response.reasonPhrase = "Busy\r\nX: 1"
        #expect(response.reasonPhrase == "Busy  X: 1" && response.bodyBytes == Array("yz".utf8)[...])
        response.body = []
        #expect(text(response.serialized()) == "SIP/2.0 486 Busy  X: 1\r\nContent-Length: 0\r\n\r\n")

        var built = SIPResponse(statusCode: 200, body: Array("abc".utf8))
        #expect(built.reasonPhrase == "OK" && built.bodyBytes == Array("abc".utf8)[...])
        built.body = Array("d".utf8)
        #expect(built.reasonPhrase == "OK")
        built.reasonPhrase = ""
        #expect(text(built.serialized()) == "SIP/2.0 200 \r\nContent-Length: 1\r\n\r\nd")
    }
}

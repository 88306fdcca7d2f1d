import Testing

@testable import SIPCore

@Suite("Typed headers")
struct HeaderTests {
    static func parse(_ headerLines: String, body: String = "") throws -> SIPMessage {
        try SIPMessage(
            parsing: "OPTIONS sip:bob@example.com SIP/2.0\r\n" + headerLines
                + "Content-Length: \(body.utf8.count)\r\n\r\n" + body)
    }

    @Test func namesAreCaseInsensitiveWithCompactForms() {
        let pairs: [(String, SIPHeaderName)] = [
            ("v", .via), ("VIA", .via), ("i", .callID), ("call-id", .callID), ("m", .contact), ("f", .from),
            ("t", .to), ("l", .contentLength), ("c", .contentType), ("k", .supported), ("s", .subject),
            ("e", .contentEncoding), ("o", .event), ("r", .referTo), ("u", .allowEvents), ("a", .acceptContact),
            ("b", .referredBy), ("d", SIPHeaderName("Request-Disposition")), ("j", .rejectContact),
            ("x", .sessionExpires), ("y", .identity), ("cseq", .cseq), ("www-authenticate", .wwwAuthenticate),
        ]
        for (text, name) in pairs { #expect(SIPHeaderName(text) == name, "\(text)") }
        #expect(SIPHeaderName("X-Custom") == SIPHeaderName("x-custom"))
        #expect(SIPHeaderName("X-Custom").canonicalName == "X-Custom")
        #expect(SIPHeaderName("n").canonicalName == "Identity-Info")
        #expect(SIPHeaderName.via.compactForm == "v")
        #expect(SIPHeaderName("") == SIPHeaderName(""))
        #expect(SIPHeaderName("").canonicalName == "")
    }

    @Test func topViaBranchIsScannedFromTheFirstViaElementOnly() throws {
        let cases: [(String, String?)] = [
            ("Via: SIP/2.0/UDP h:5060;rport;branch=z9hG4bKa1\r\n", "z9hG4bKa1"),
            ("v: SIP/2.0/UDP h;BRANCH = z9hG4bKb2 ;rport\r\n", "z9hG4bKb2"),
            ("Via: SIP/2.0/UDP h;x=\"a;branch=no\";branch=z9hG4bKc3\r\n", "z9hG4bKc3"),
            ("Via: SIP/2.0/UDP h;rport, SIP/2.0/UDP p;branch=z9hG4bKnot\r\n", nil),
            ("Via: SIP/2.0/UDP h;branch=z9hG4bKd4,SIP/2.0/UDP p;branch=z9hG4bKe5\r\n", "z9hG4bKd4"),
            ("Via: SIP/2.0/UDP [2001:db8::1]:5060;branchx=1;branch=z9hG4bKf6\r\n", "z9hG4bKf6"),
            ("Via: SIP/2.0/UDP h\r\n ;branch=z9hG4bKg7\r\n", "z9hG4bKg7"),
            ("", nil),
        ]
        for (lines, expected) in cases {
            let message = try Self.parse(lines + "Call-ID: x\r\n")
            #expect(message.headers.topViaBranch == expected, "\(lines)")
            if let expected, lines.contains(",") == false {
                #expect(try message.headers.topVia()?.branch == expected)
            }
        }
    }

    @Test func viaParameters() throws {
        let m = try Self.parse(
            "Via: SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK776;rport;received=198.51.100.1\r\n"
                + "v: SIP/2.0/WSS [2001:db8::1]:443;rport=5070;branch=z9hG4bKx, SIP/2.0/WS h.invalid\r\n")
        let vias = try m.headers.vias()
        #expect(vias.count == 3)
        #expect(vias[0].host == SIPHost(kind: .ipv4, address: "192.0.2.1") && vias[0].port == 5060)
        #expect(vias[0].rport == .requested && vias[0].received == "198.51.100.1")
        #expect(vias[0].hasMagicCookie)
        #expect(vias[1].transport == .wss && vias[1].host.kind == .ipv6 && vias[1].port == 443)
        #expect(vias[1].rport == .value(5070))
        #expect(vias[2].transport == .ws && vias[2].port == nil && vias[2].branch == nil)
        #expect(try m.headers.topVia()?.branch == "z9hG4bK776")
        var via = SIPVia(transport: .tls, host: "2001:db8::5", port: 5061, branch: "z9hG4bKabc")
        via.rport = .requested
        #expect(via.description == "SIP/2.0/TLS [2001:db8::5]:5061;branch=z9hG4bKabc;rport")
    }

    @Test func transportTokens() {
        #expect(SIPTransportProtocol("udp") == .udp)
        #expect(SIPTransportProtocol("Wss") == .wss)
        #expect(SIPTransportProtocol("tls-sctp") == .other("TLS-SCTP"))
        #expect(
            SIPTransportProtocol.wss.isSecure && SIPTransportProtocol.tcp.isStream && !SIPTransportProtocol.ws.isStream)
        #expect(SIPTransportProtocol.udp.isReliable == false && SIPTransportProtocol.tls.defaultPort == 5061)
    }

    @Test func fromToForms() throws {
        let m = try Self.parse("From: Alice <sip:alice@example.com>;tag=88sja8x\r\nTo: sip:bob@example.com;tag=x\r\n")
        let from = try #require(try m.headers.from())
        #expect(from.displayName == "Alice" && from.tag == "88sja8x" && from.uri.user == "alice")
        let to = try #require(try m.headers.to())
        #expect(to.displayName == nil && to.tag == "x" && to.uri.parameters.isEmpty)
        #expect(from.description == "\"Alice\" <sip:alice@example.com>;tag=88sja8x")
    }

    @Test func contactsOutboundAndPush() throws {
        let m = try Self.parse(
            "Contact: <sip:a@192.0.2.1;transport=tcp;ob>;+sip.instance=\"<urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6>\""
                + ";reg-id=1;expires=3600;q=0.7, \"B, C\" <sips:b@[2001:db8::2]:5061>\r\n"
                + "m: <sip:c@example.com;pn-provider=apns;pn-prid=00fc1362:aa;pn-param=ABCD.com.example.voip>\r\n")
        let contacts = try m.headers.contacts()
        #expect(contacts.count == 3)
        #expect(contacts[0].instance == "<urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6>")
        #expect(contacts[0].regID == 1 && contacts[0].expires == 3600 && contacts[0].q == "0.7")
        #expect(contacts[0].address?.uri.parameters.contains("ob") == true)
        #expect(contacts[1].address?.displayName == "B, C")
        #expect(contacts[1].address?.uri.host?.address == "2001:db8::2" && contacts[1].address?.uri.port == 5061)
        #expect(contacts[2].pushProvider == "apns" && contacts[2].pushPRID == "00fc1362:aa")
        #expect(contacts[2].pushParam == "ABCD.com.example.voip")
        let star = try Self.parse("Contact: *\r\nExpires: 0\r\n")
        #expect(try star.headers.contacts() == [.wildcard])
        #expect(try star.headers.expires() == 0)
    }

    @Test func routesAndRecordRoutes() throws {
        let m = try Self.parse(
            "Route: <sip:p1.example.com;lr>,<sip:p2.example.com;lr>\r\nRoute: <sip:p3.example.com>\r\n"
                + "Record-Route: <sip:rr.example.com;lr>\r\n")
        #expect(
            try m.headers.routes().map { $0.uri.host?.address } == [
                "p1.example.com", "p2.example.com", "p3.example.com",
            ])
        #expect(try m.headers.routes().map(\.uri.isLooseRouter) == [true, true, false])
        #expect(try m.headers.recordRoutes().count == 1)
    }

    @Test func scalarsAndTokenLists() throws {
        let m = try Self.parse(
            "Max-Forwards: 70\r\nExpires: 600\r\nMin-Expires: 60\r\nCSeq: 4711 OPTIONS\r\n"
                + "Allow: INVITE, ACK,BYE\r\nSupported: path, outbound\r\nRequire: 100rel\r\n"
                + "User-Agent: AstraSIP/0.1 (test)\r\nServer: X\r\nContent-Type: application/sdp\r\n"
                + "Call-ID: abc@def\r\n")
        let h = m.headers
        #expect(try h.maxForwards() == 70 && h.callID == "abc@def")
        #expect(try h.expires() == 600 && h.minExpires() == 60)
        #expect(try h.cseq() == SIPCSeq(4711, .options))
        #expect(h.allow == [.invite, .ack, .bye] && h.supported == ["path", "outbound"] && h.require == ["100rel"])
        #expect(h.userAgent == "AstraSIP/0.1 (test)" && h.server == "X" && h.contentType == "application/sdp")
        #expect(try h.contentLength() == 0)
    }

    @Test func authHeadersStayRaw() throws {
        let value = "Digest realm=\"example.com\", nonce=\"a,b\", qop=\"auth,auth-int\""
        let m = try Self.parse("WWW-Authenticate: \(value)\r\nProxy-Authenticate: Digest realm=\"p\"\r\n")
        #expect(m.headers.values(.wwwAuthenticate) == [value])
        #expect(m.headers.first(.proxyAuthenticate)?.rawValue == "Digest realm=\"p\"")
    }

    @Test func foldedAndRawValues() throws {
        let m = try Self.parse("Subject: first\r\n   second \r\n\tthird\r\nX-Empty:\r\n")
        let field = try #require(m.headers.first(.subject))
        #expect(field.value == "first second third")
        #expect(field.rawValue == "first\r\n   second \r\n\tthird")
        #expect(m.headers[SIPHeaderName("x-empty")] == "")
    }
}

@Suite("Comma splitting")
struct CommaSplittingTests {
    @Test func splitsOutsideQuotesAndAngleBrackets() throws {
        let m = try SIPMessage(
            parsing: "OPTIONS sip:a@b SIP/2.0\r\nP-Asserted-Identity: \"Doe, John\" <sip:j@x;a=1,2>, "
                + "<tel:+1555>\r\nX-Q: \"a\\\",b\", c ,, d\r\nContent-Length: 0\r\n\r\n")
        #expect(
            m.headers.commaSeparatedValues("P-Asserted-Identity") == ["\"Doe, John\" <sip:j@x;a=1,2>", "<tel:+1555>"])
        #expect(m.headers.commaSeparatedValues("x-q") == ["\"a\\\",b\"", "c", "d"])
    }
}

@Suite("Liberal header forms")
struct LiberalHeaderTests {
    @Test func emptyListElementsAndTrailingCommas() throws {
        let m = try SIPMessage(
            parsing: "ACK sip:b@example.com SIP/2.0\r\nVia: SIP/2.0/WSS h.invalid;branch=z9hG4bK1,\r\n"
                + "Route: <sip:p1.example.com;lr>,,<sip:p2.example.com;lr>,\r\nContent-Length: 0\r\n\r\n")
        #expect(try m.headers.vias().count == 1)
        #expect(try m.headers.routes().count == 2)
        let f6 = try Vectors.message("rfc7118_8.2_F6_ACK")
        #expect(try !f6.headers.routes().isEmpty)
    }

    @Test func unquotedUTF8DisplayName() throws {
        let m = try SIPMessage(
            parsing: "OPTIONS sip:b@example.com SIP/2.0\r\nFrom: José Núñez <sip:j@example.com>;tag=1\r\n"
                + "Content-Length: 0\r\n\r\n")
        #expect(try m.headers.from()?.displayName == "José Núñez")
    }
}

@Suite("Top Via editing")
struct TopViaTests {
    @Test func setAndRemoveTopVia() throws {
        let m = try SIPMessage(
            parsing: "SIP/2.0 200 OK\r\nv: SIP/2.0/UDP a.example.com;branch=z9hG4bK1;rport, "
                + "SIP/2.0/TCP b.example.com;branch=z9hG4bK2\r\nVia: SIP/2.0/UDP c.example.com;branch=z9hG4bK3\r\n"
                + "Content-Length: 0\r\n\r\n")
        var headers = m.headers
        var top = try #require(try headers.topVia())
        top.received = "198.51.100.1"
        top.rport = .value(5070)
        try headers.setTopVia(top)
        #expect(
            headers.values(.via)[0] == "SIP/2.0/UDP a.example.com;branch=z9hG4bK1;rport=5070;received=198.51.100.1, "
                + "SIP/2.0/TCP b.example.com;branch=z9hG4bK2")
        let removed = try headers.removeTopVia()
        #expect(removed?.branch == "z9hG4bK1")
        #expect(try headers.vias().map(\.branch) == ["z9hG4bK2", "z9hG4bK3"])
        try headers.removeTopVia()
        try headers.removeTopVia()
        #expect(try headers.removeTopVia() == nil)
        try headers.setTopVia(SIPVia(transport: .ws, host: "h.invalid", branch: "z9hG4bK9"))
        #expect(headers.first?.name == .via)
    }
}

/// RFC 3261 §8.1.3.3 / §18.1.2: the client's view of a response's Via.
@Suite struct ResponseViaTests {
    func via(_ lines: String...) throws -> ResponseVia {
        let text = "SIP/2.0 200 OK\r\n" + lines.map { "Via: \($0)\r\n" }.joined() + "Content-Length: 0\r\n\r\n"
        return try #require(try SIPMessage(parsing: text).response).headers.responseVia
    }

    @Test func oneViaGivesItsSentByNormalised() throws {
        #expect(try via("SIP/2.0/UDP Host.Example.COM:5070;branch=z9hG4bK1;received=1.2.3.4")
            == .single(ViaSentBy(host: "host.example.com", port: 5070)))
        #expect(try via("SIP / 2.0 / TCP 192.0.2.1 ;branch=z9hG4bK1") == .single(ViaSentBy(host: "192.0.2.1", port: nil)))
        #expect(try via("SIP/2.0/UDP [2001:DB8::9]:5060;branch=z9hG4bK1")
            == .single(ViaSentBy(host: "[2001:db8::9]", port: 5060)))
        #expect(ViaSentBy(host: "a.example", port: nil) != ViaSentBy(host: "a.example", port: 5060))
    }

    @Test func moreThanOneValueIsSeveralOnOneLineOrTwo() throws {
        #expect(try via("SIP/2.0/UDP a;branch=z9hG4bK1, SIP/2.0/UDP b;branch=z9hG4bK2") == .several)
        #expect(try via("SIP/2.0/UDP a;branch=z9hG4bK1", "SIP/2.0/UDP b;branch=z9hG4bK2") == .several)
        #expect(try via() == .missing)
    }
}

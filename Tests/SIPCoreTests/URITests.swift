import Testing

@testable import SIPCore

@Suite("URIs")
struct URITests {
    @Test func sipURIParts() throws {
        let uri = try SIPURI(
            parsing: "sips:alice:secret@atlanta.example.com:5061;transport=tcp;lr?subject=project%20x&priority=urgent")
        #expect(uri.scheme == .sips && uri.user == "alice" && uri.password == "secret")
        #expect(uri.host == SIPHost(kind: .name, address: "atlanta.example.com") && uri.port == 5061)
        #expect(uri.transport == .tcp && uri.isLooseRouter)
        #expect(uri.headers.map(\.name) == ["subject", "priority"])
        #expect(uri.headers["subject"] == "project%20x")
        #expect(
            uri.description
                == "sips:alice:secret@atlanta.example.com:5061;transport=tcp;lr?subject=project%20x&priority=urgent")
    }

    @Test func escapingRoundTrip() throws {
        let uri = try SIPURI(parsing: "sip:%61lice%20b@example.com")
        #expect(uri.user == "alice b")
        #expect(uri.description == "sip:alice%20b@example.com")
        let nul = try SIPURI(parsing: "sip:null-%00-null@example.com")
        #expect(nul.user == "null-\u{0}-null")
        #expect(try SIPURI(parsing: nul.description) == nul)
        #expect(throws: SIPParseError(.invalidURI, offset: 0)) { try SIPURI(parsing: "sip:a%4@example.com") }
    }

    @Test func ipv6References() throws {
        let a = try SIPURI(parsing: "sip:[2001:db8::10]:5070")
        #expect(a.host?.kind == .ipv6 && a.host?.address == "2001:db8::10" && a.port == 5070)
        #expect(a.description == "sip:[2001:db8::10]:5070")
        let b = try SIPURI(parsing: "sip:user@[::ffff:192.0.2.1];transport=udp")
        #expect(b.host?.address == "::ffff:192.0.2.1" && b.transport == .udp)
        #expect(throws: SIPParseError(.invalidURI, offset: 0)) { try SIPURI(parsing: "sip:2001:db8::10") }
        #expect(throws: SIPParseError(.invalidURI, offset: 0)) { try SIPURI(parsing: "sip:[2001:db8::10") }
        #expect(try SIPURI(parsing: "sip:192.0.2.4").host?.kind == .ipv4)
    }

    @Test func telAndOtherSchemes() throws {
        let tel = try SIPURI(parsing: "tel:+1-201-555-0123;phone-context=example.com")
        #expect(tel.scheme == .tel && tel.user == "+1-201-555-0123" && tel.host == nil)
        #expect(tel.parameters["phone-context"] == "example.com")
        #expect(tel.description == "tel:+1-201-555-0123;phone-context=example.com")
        let other = try SIPURI(parsing: "urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6")
        #expect(other.scheme.name == "urn" && other.opaque == "uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6")
        #expect(other.description == "urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6")
    }

    @Test func malformed() {
        for text in [
            "", "sip:", "sip:@example.com", "sip:a@", "<sip:a@b>", "sip:a@b:99999", "sip:a@b;", "sip:a b@c",
            "sip:a@b:x", "1sip:a@b",
        ] {
            #expect(throws: SIPParseError.self, "\(text)") { try SIPURI(parsing: text) }
        }
    }

    @Test func builtURIs() {
        var uri = SIPURI(user: "alice", host: "example.com", port: 5060)
        uri.parameters.set("transport", "ws")
        uri.parameters.set("ob")
        #expect(uri.description == "sip:alice@example.com:5060;transport=ws;ob")
        #expect(SIPURI(host: "2001:db8::1").description == "sip:[2001:db8::1]")
    }
}

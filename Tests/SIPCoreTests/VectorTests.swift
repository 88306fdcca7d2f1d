import Testing

@testable import SIPCore

@Suite("RFC 4475 / 5118 / 7118 vectors")
struct VectorTests {
    static let names = Vectors.manifest.messages.keys.sorted()

    @Test("every vector parses as the manifest's parse_ok says", arguments: names)
    func manifestOutcome(name: String) throws {
        let entry = Vectors.manifest.messages[name]!
        let outcome: String
        var failure: SIPParseError? = nil
        do {
            _ = try SIPMessage(parsing: Vectors.bytes(entry.file))
            outcome = "accept"
        } catch {
            failure = error
            outcome = "reject"
        }
        if let reason = Vectors.deviations[name] {
            #expect(outcome == "reject", "deviation no longer needed: \(reason)")
            return
        }
        #expect(entry.parse_ok.contains(outcome), "\(name): got \(outcome) \(failure.map { "\($0)" } ?? "")")
    }

    @Test func rejectedVectorsNameTheProblem() throws {
        let expectations: [(String, SIPParseError.Code)] = [
            ("badinv01", .invalidHeaderValue), ("clerr", .truncatedBody), ("ncl", .invalidContentLength),
            ("scalar02", .numberOutOfRange), ("scalarlg", .numberOutOfRange), ("bigcode", .invalidStatusCode),
            ("ipv6-bad", .invalidRequestURI), ("test", .invalidStartLine), ("mcl01", .conflictingContentLength),
        ]
        for (name, code) in expectations {
            #expect(throws: SIPParseError(code, offset: 0), "\(name)") { try Vectors.message(name) }
        }
    }

    @Test func wsinvTortuousInvite() throws {
        let request = try #require(try Vectors.message("wsinv").request)
        #expect(request.method == .invite)
        #expect(request.uri.host?.address == "chair-dnrc.example.com")
        #expect(request.uri.parameters.contains("unknownparam"))
        let h = request.headers
        #expect(try h.to()?.tag == "1918181833n")
        #expect(try h.from()?.displayName == "J Rosenberg \\\"")
        #expect(try h.from()?.tag == "98asjd8")
        #expect(try h.maxForwards() == 68)
        #expect(try h.cseq() == SIPCSeq(9, .invite))
        #expect(h.callID == "wsinv.ndaksdj@192.0.2.1")
        let vias = try h.vias()
        #expect(vias.count == 3)
        #expect(vias[0].transport == .udp && vias[0].branch == "390skdjuw")
        #expect(vias[1].transport == .tcp && vias[1].host.address == "spindle.example.com")
        #expect(vias[1].branch == "z9hG4bK9ikj8")
        #expect(vias[2].host.address == "192.168.255.111" && vias[2].branch == "z9hG4bK30239")
        #expect(h[SIPHeaderName("Subject")] == "")
        #expect(h[SIPHeaderName("NewFangledHeader")] == "newfangled value continued newfangled value")
        #expect(h[SIPHeaderName("UnknownHeaderWithUnusualValue")] == ";;,,;;,;")
        let contacts = try h.contacts()
        #expect(contacts.count == 1)
        #expect(contacts[0].address?.displayName == "Quoted string \"\"")
        #expect(contacts[0].q == "0.33")
        #expect(contacts[0].address?.parameters["newparam"] == "newvalue")
        #expect(try h.routes().first?.uri.isLooseRouter == true)
        #expect(request.bodyBytes.count == 150)
        #expect(h.first(.maxForwards)?.rawName == "MaX-fOrWaRdS")
    }

    @Test func intmethWideCharacters() throws {
        let request = try #require(try Vectors.message("intmeth").request)
        #expect(request.method.rawValue == "!interesting-Method0123456789_*+`.%indeed'~")
        #expect(request.uri.user == "1_unusual.URI~(to-be!sure)&isn't+it$/crazy?,/;;*")
        #expect(request.uri.password == "&it+has=1,weird!*pas$wo~d_too.(doesn't-it)")
        let to = try #require(try request.headers.to())
        #expect(to.displayName == "BEL:\u{07} NUL:\u{00} DEL:\u{7F}")
        let from = try #require(try request.headers.from())
        #expect(from.displayName == "token1~` token2'+_ token3*%!.-")
        #expect(from.tag == "_token~1'+`*%!-.")
        #expect(try request.headers.cseq()?.method == request.method)
    }

    @Test func escapingAndSemicolonsInUserPart() throws {
        let esc01 = try #require(try Vectors.message("esc01").request)
        #expect(esc01.uri.user == "sips:user@example.com")
        let escnull = try #require(try Vectors.message("escnull").request)
        #expect(try escnull.headers.to()?.uri.user == "null-\u{0}-null")
        let semi = try #require(try Vectors.message("semiuri").request)
        #expect(semi.uri.user == "user;par=u@example.net")
        #expect(semi.uri.host?.address == "example.com")
        let esc02 = try #require(try Vectors.message("esc02").request)
        #expect(esc02.method.rawValue == "RE%47IST%45R")
        #expect(try esc02.headers.contacts().count == 2)
        #expect(esc02.headers.fields(SIPHeaderName("C%6Fntact")).count == 1)
    }

    @Test func datagramFraming() throws {
        let dblreq = try #require(try Vectors.message("dblreq").request)
        #expect(dblreq.method == .register && dblreq.bodyBytes.isEmpty)
        let mpart = try Vectors.message("mpart01")
        #expect(mpart.bodyBytes.count == (try mpart.headers.contentLength()))
        let inv2543 = try #require(try Vectors.message("inv2543").request)
        #expect(!inv2543.bodyBytes.isEmpty)  // no Content-Length: body runs to the datagram end
        #expect(try inv2543.headers.topVia()?.branch == nil)
    }

    @Test func responsesAndReasonPhrases() throws {
        let unreason = try #require(try Vectors.message("unreason").response)
        #expect(unreason.statusCode == 200 && unreason.reasonPhrase.contains("😀") == false)
        #expect(!unreason.reasonPhrase.isEmpty)
        let noreason = try #require(try Vectors.message("noreason").response)
        #expect(noreason.statusCode == 100 && noreason.reasonPhrase == "")
    }

    @Test func transportsAndIPv6() throws {
        let t = try Vectors.message("transports")
        #expect(try t.headers.vias().map(\.transport) == [.udp, .sctp, .tls, .other("UNKNOWN"), .tcp])
        let good = try #require(try Vectors.message("ipv6-good").request)
        #expect(good.uri.host == SIPHost(kind: .ipv6, address: "2001:db8::10"))
        #expect(try good.headers.topVia()?.host.address == "2001:db8::9:1")
        let amb = try #require(try Vectors.message("port-ambiguous").request)
        #expect(amb.uri.host?.address == "2001:db8::10:5070" && amb.uri.port == nil)
        let unamb = try #require(try Vectors.message("port-unambiguous").request)
        #expect(unamb.uri.host?.address == "2001:db8::10" && unamb.uri.port == 5070)
        let with = try Vectors.message("via-received-param-with-delim")
        #expect(try with.headers.topVia()?.received == "2001:db8::9:255")
        let without = try Vectors.message("via-received-param-no-delim")
        #expect(try without.headers.topVia()?.received == "2001:db8::9:255")
        #expect(try without.headers.topVia()?.branch == "z9hG4bKas3")
        let mult = try Vectors.message("mult-ip-in-header")
        let vias = try mult.headers.vias()
        #expect(vias.count == 3 && vias[2].transport == .tcp && vias[2].received == "192.0.2.200")
    }

    @Test func webSocketVias() throws {
        let register = try #require(try Vectors.message("rfc7118_8.1_F3_REGISTER").request)
        #expect(try register.headers.topVia()?.transport == .wss)
        #expect(try register.headers.topVia()?.host.address == "df7jal23ls0d.invalid")
    }

    @Test func contactParameterPlacement() throws {
        let c1 = try Vectors.message("cparam01").headers.contacts()
        #expect(c1.first?.address?.parameters.contains("unknownparam") == true)
        #expect(c1.first?.address?.uri.parameters.isEmpty == true)
        let c2 = try Vectors.message("cparam02").headers.contacts()
        #expect(c2.first?.address?.uri.parameters.contains("unknownparam") == true)
        let regescrt = try Vectors.message("regescrt").headers.contacts()
        #expect(regescrt.first?.address?.uri.headers.first?.name == "Route")
    }
}

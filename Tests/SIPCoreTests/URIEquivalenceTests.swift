import Testing

@testable import SIPCore

/// RFC 3261 §19.1.4, with the RFC's own examples verbatim.
@Suite struct URIEquivalenceTests {
    func equivalent(_ a: String, _ b: String) throws -> Bool {
        let x = try SIPURI(parsing: a)
        let y = try SIPURI(parsing: b)
        let forward = x.isEquivalent(to: y)
        #expect(forward == y.isEquivalent(to: x), "not symmetric: \(a) / \(b)")
        return forward
    }

    /// "The URIs within each of the following sets are equivalent".
    @Test(arguments: [
        ["sip:%61lice@atlanta.com;transport=TCP", "sip:alice@AtLanTa.CoM;Transport=tcp"],
        ["sip:carol@chicago.com", "sip:carol@chicago.com;newparam=5", "sip:carol@chicago.com;security=on"],
        [
            "sip:biloxi.com;transport=tcp;method=REGISTER?to=sip:bob%40biloxi.com",
            "sip:biloxi.com;method=REGISTER;transport=tcp?to=sip:bob%40biloxi.com",
        ],
        [
            "sip:alice@atlanta.com?subject=project%20x&priority=urgent",
            "sip:alice@atlanta.com?priority=urgent&subject=project%20x",
        ],
    ])
    func rfcEquivalentSets(_ set: [String]) throws {
        for a in set {
            for b in set { #expect(try equivalent(a, b), "\(a) ≢ \(b)") }
        }
    }

    /// "The URIs within each of the following sets are not equivalent".
    @Test(arguments: [
        ("SIP:ALICE@AtLanTa.CoM;Transport=udp", "sip:alice@AtLanTa.CoM;Transport=UDP"),  // different usernames
        ("sip:bob@biloxi.com", "sip:bob@biloxi.com:5060"),  // can resolve to different ports
        ("sip:bob@biloxi.com", "sip:bob@biloxi.com;transport=udp"),  // can resolve to different transports
        ("sip:bob@biloxi.com", "sip:bob@biloxi.com:6000;transport=tcp"),  // different port and transports
        ("sip:carol@chicago.com", "sip:carol@chicago.com?Subject=next%20meeting"),  // different header component
        ("sip:bob@phone21.boxesbybob.com", "sip:bob@192.0.2.4"),  // even though that's what it resolves to
    ])
    func rfcNonEquivalentPairs(_ a: String, _ b: String) throws {
        #expect(try !equivalent(a, b), "\(a) ≡ \(b)")
    }

    @Test func sipAndSipsAreNeverEquivalent() throws {
        #expect(try !equivalent("sip:alice@atlanta.com", "sips:alice@atlanta.com"))
    }

    @Test func theRemainingRules() throws {
        #expect(try !equivalent("sip:alice:secret@atlanta.com", "sip:alice@atlanta.com"))  // password is userinfo
        #expect(try !equivalent("sip:alice@atlanta.com;maddr=239.255.255.1", "sip:alice@atlanta.com"))
        #expect(try !equivalent("sip:alice@atlanta.com;user=phone", "sip:alice@atlanta.com"))
        #expect(try !equivalent("sip:alice@atlanta.com;ttl=15", "sip:alice@atlanta.com"))
        #expect(try !equivalent("sip:a@atlanta.com;newparam=5", "sip:a@atlanta.com;newparam=6"))
        #expect(try equivalent("sip:a@atlanta.com;lr", "sip:a@atlanta.com"))  // lr only on one side
        #expect(try equivalent("sip:a@atlanta.com;X=%41", "sip:a@atlanta.com;x=a"))
        #expect(try equivalent("sip:a@[2001:DB8::1]:5070", "sip:a@[2001:db8:0:0:0:0:0:1]:5070"))
        #expect(try !equivalent("sip:a@[2001:db8::1]", "sip:a@[2001:db8::2]"))
        #expect(try equivalent("tel:+1-201-555-0123", "tel:+12015550123"))
        #expect(try !equivalent("tel:+12015550123", "tel:+12015550124"))
    }

    /// `==` stays structural: the RFC-equivalent pair differs as values.
    @Test func equalityIsNotEquivalence() throws {
        let a = try SIPURI(parsing: "sip:carol@chicago.com")
        let b = try SIPURI(parsing: "sip:carol@chicago.com;newparam=5")
        #expect(a != b)
        #expect(a.isEquivalent(to: b))
    }
}

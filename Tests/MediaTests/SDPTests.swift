import SIPCore
import Testing

@testable import Media

@Suite struct SDPTests {
    static let offerText = """
        v=0\r
        o=alice 2890844526 2890844526 IN IP4 atlanta.example.com\r
        s=-\r
        c=IN IP4 192.0.2.10\r
        t=0 0\r
        a=group:BUNDLE a0\r
        a=x-unknown-session:keep me\r
        m=audio 49170 RTP/SAVP 0 8 97 101\r
        a=rtpmap:0 PCMU/8000\r
        a=rtpmap:8 PCMA/8000\r
        a=rtpmap:97 iLBC/8000\r
        a=rtpmap:101 telephone-event/8000\r
        a=fmtp:101 0-16\r
        a=ptime:30\r
        a=sendrecv\r
        a=rtcp:49171 IN IP4 192.0.2.10\r
        a=rtcp-mux\r
        a=mid:a0\r
        a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR|2^20|1:32\r
        a=crypto:2 AES_CM_128_HMAC_SHA1_32 inline:NzB4d1BINUAvLEw6UzF3WSJ+PSdFcGdUJShpX1Zj|2^20|1:32\r
        a=ice-ufrag:F7gI\r
        a=ice-pwd:x9cml/YzichV2+XlhiMu8g\r
        a=ice-options:trickle\r
        a=candidate:1 1 UDP 2130706431 192.0.2.10 49170 typ host\r
        a=candidate:2 1 UDP 1694498815 198.51.100.7 49170 typ srflx raddr 192.0.2.10 rport 49170 generation 0\r
        a=fingerprint:sha-256 4A:AD:B9:B1:3F:82:18:3B:54:02:12:DF:3E:5D:49:6B:19:E5:7C:AB:4A:AD:B9:B1:3F:82:18:3B:54:02:12:DF\r
        a=setup:actpass\r
        a=x-vendor:something 1 2 3\r
        m=video 0 RTP/AVP 31\r
        c=IN IP4 192.0.2.10\r

        """

    @Test func parsesEveryAttributeAndPreservesUnknownOnesByteForByte() throws {
        let sdp = try SessionDescription(parsing: Self.offerText)
        #expect(sdp.serialized() == Self.offerText)
        #expect(sdp.origin.sessionVersion == 2_890_844_526)
        #expect(sdp.groups == [SDPGroup(semantics: "BUNDLE", mids: ["a0"])])
        #expect(sdp.attribute("x-unknown-session") == "keep me")
        let m = sdp.media[0]
        #expect(m.formats == ["0", "8", "97", "101"])
        #expect(m.rtpMaps.count == 4)
        #expect(m.encoding(of: 101)?.encodingName == "telephone-event")
        #expect(m.formatParameters(for: 101) == "0-16")
        #expect(m.ptime == 30)
        #expect(m.direction == .sendrecv)
        #expect(m.rtcp == RTCPAttribute(port: 49171, address: "192.0.2.10"))
        #expect(m.rtcpMux)
        #expect(m.mid == "a0")
        #expect(m.crypto.map(\.tag) == [1, 2])
        #expect(m.crypto[0].profile == .aesCM128HmacSHA1_80 && m.crypto[0].keyAndSalt.count == 30)
        #expect(m.crypto[1].profile == .aesCM128HmacSHA1_32)
        #expect(m.iceUfrag == "F7gI" && m.icePwd == "x9cml/YzichV2+XlhiMu8g" && m.iceOptions == ["trickle"])
        #expect(m.candidates.count == 2)
        #expect(m.candidates[1].relatedAddress == "192.0.2.10" && m.candidates[1].relatedPort == 49170)
        #expect(m.candidates[1].extensions == [SDPAttribute("generation", "0")])
        #expect(m.fingerprints.first?.hashFunction == "sha-256" && m.fingerprints.first?.bytes.count == 32)
        #expect(m.setup == .actpass)
        #expect(m.attribute("x-vendor") == "something 1 2 3")
        #expect(sdp.media[1].port == 0)
    }

    @Test func descriptionRedactsKeys() throws {
        let sdp = try SessionDescription(parsing: Self.offerText)
        #expect(!sdp.description.contains("PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR"))
        #expect(sdp.description.contains("inline:<redacted>"))
        #expect(!"\(sdp.media[0].crypto[0])".contains("PS1uQ"))
        let key = SRTPKeyMaterial.random(.aesCM128HmacSHA1_80)
        #expect("\(key)" == "SRTPKeyMaterial(AES_CM_128_HMAC_SHA1_80, <redacted>)")
        // Nothing that prints a value may show a key: plain, debug, dump, nested.
        let inline = Base64.encode(key.keyAndSalt)
        let hexKey = key.keyAndSalt.map { String($0) }.joined(separator: ", ")
        var config = MediaSessionConfiguration()
        config.srtp = SRTPKeys(local: key, remote: key)
        var dumped = ""
        dump(config, to: &dumped)
        dump(key, to: &dumped)
        dump(sdp.media[0], to: &dumped)
        let printed = [
            "\(config)", String(reflecting: config), "\(sdp.media[0])", String(reflecting: sdp.media[0]),
            "\(sdp.media[0].crypto)", String(reflecting: key), dumped,
        ]
        for text in printed {
            #expect(!text.contains(inline) && !text.contains(hexKey) && !text.contains("PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR"))
        }
    }

    @Test(arguments: [
        ("", MediaError.Code.missingSDPLine),
        ("v=0\r\ns=-\r\nt=0 0\r\n", .missingSDPLine),
        ("v=1\r\no=- 1 1 IN IP4 h\r\ns=-\r\nt=0 0\r\n", .badSDPField),
        ("v=0\r\no=- 1 1 IN IP4 h\r\ns=-\r\nt=0 0\r\nm=audio 5000 RTP/AVP 0\r\n", .missingSDPLine),
        ("v=0\r\no=- 1 1 IN IP4 h\r\ns=-\r\nc=IN IP4 1.2.3.4\r\nt=0 0\r\nm=audio x RTP/AVP 0\r\n", .badSDPField),
        ("v=0\r\no=- 1 1 IN IP4 h\r\ns=-\r\nc=IN IP4 1.2.3.999\r\nt=0 0\r\n", .badSDPField),
        (
            "v=0\r\no=- 1 1 IN IP4 h\r\ns=-\r\nc=IN IP4 1.2.3.4\r\nt=0 0\r\nm=audio 5 RTP/AVP 0\r\na=rtpmap:0 PCMU\r\n",
            .badSDPField
        ),
        (
            "v=0\r\no=- 1 1 IN IP4 h\r\ns=-\r\nc=IN IP4 1.2.3.4\r\nt=0 0\r\nm=audio 5 RTP/SAVP 0\r\na=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:AAAA\r\n",
            .badSDPField
        ),
        (
            "v=0\r\no=- 1 1 IN IP4 h\r\ns=-\r\nc=IN IP4 1.2.3.4\r\nt=0 0\r\nm=audio 5 RTP/AVP 0\r\na=setup:sideways\r\n",
            .badSDPField
        ),
        (
            "v=0\r\no=- 1 1 IN IP4 h\r\ns=-\r\nc=IN IP4 1.2.3.4\r\nt=0 0\r\nm=audio 5 RTP/AVP 0\r\na=candidate:1 1 UDP x\r\n",
            .badSDPField
        ),
        ("v=0\r\ns=-\r\no=- 1 1 IN IP4 h\r\nt=0 0\r\n", .badSDPLine),
        ("v=0\r\no=- 1 1 IN IP4 h\r\ns=-\r\nt=0 0\r\nthis is not sdp\r\n", .badSDPLine),
        (
            "v=0\r\no=- 1 1 IN IP4 h\r\ns=-\r\nc=IN IP4 1.2.3.4\r\nt=0 0\r\nm=audio 5 RTP/AVP 0\r\nt=0 0\r\n",
            .badSDPLine
        ),
    ])
    func badSDPThrowsTypedErrors(text: String, code: MediaError.Code) {
        #expect(throws: MediaError(code)) { try SessionDescription(parsing: text) }
    }

    @Test func acceptsBareLFAndParsesTheRFC4475SDPBodies() throws {
        let sdp = try SessionDescription(
            parsing: "v=0\no=- 1 1 IN IP6 ::1\ns=x\nc=IN IP6 ::1\nt=0 0\nm=audio 4000 RTP/AVP 8\n")
        #expect(sdp.media[0].encoding(of: 8)?.encodingName == "PCMA")
        #expect(sdp.effectiveConnection(of: 0)?.host == "::1")
    }

    static func caps(port: UInt16, srtp: Bool = true) -> AudioCapabilities {
        var c = AudioCapabilities(address: "127.0.0.1", port: port)
        if srtp {
            c.crypto = [
                SRTPKeyMaterial.random(.aesCM128HmacSHA1_80),
                SRTPKeyMaterial.random(.aesCM128HmacSHA1_32),
            ]
        }
        return c
    }

    @Test func offerAnswerRoundTripNegotiatesCodecKeysAndDirection() throws {
        let alice = Self.caps(port: 4000)
        var bob = Self.caps(port: 5000)
        bob.codecs = [.pcmu, .pcma]  // Bob prefers µ-law but honours the offerer's order.
        let offer = OfferAnswer.makeOffer(
            alice, origin: SDPOrigin(sessionID: "1", sessionVersion: 1, address: "127.0.0.1"))
        let offerText = offer.serialized()
        #expect(offerText.contains("m=audio 4000 RTP/SAVP 8 0 101\r\n"))
        #expect(offerText.contains("a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:"))
        let parsedOffer = try SessionDescription(parsing: offerText)
        let (answer, bobAudio) = try OfferAnswer.makeAnswer(
            to: parsedOffer, capabilities: bob,
            origin: SDPOrigin(sessionID: "2", sessionVersion: 1, address: "127.0.0.1"))
        let b = try #require(bobAudio)
        #expect(b.codec == .pcma && b.payloadType == 8 && b.telephoneEventPayloadType == 101)
        #expect(b.remotePort == 4000 && b.rtcpMux && b.direction == .sendrecv)
        #expect(b.localKey == bob.crypto[0] && b.remoteKey == alice.crypto[0])
        let a = try OfferAnswer.processAnswer(
            try SessionDescription(parsing: answer.serialized()), offer: offer, capabilities: alice)
        #expect(a.codec == .pcma && a.remotePort == 5000)
        #expect(a.localKey == alice.crypto[0] && a.remoteKey == bob.crypto[0])

        var bobOwnOrder = bob
        bobOwnOrder.preferOffererCodecOrder = false
        let (_, own) = try OfferAnswer.makeAnswer(to: parsedOffer, capabilities: bobOwnOrder, origin: offer.origin)
        #expect(own?.codec == .pcmu)
    }

    @Test func answerRejectsPortZeroAndUnsupportedStreamsAndMirrorsHold() throws {
        var text = Self.offerText.replacingOccurrences(of: "a=sendrecv", with: "a=sendonly")
        let bob = Self.caps(port: 5000)
        var offer = try SessionDescription(parsing: text)
        let (answer, audio) = try OfferAnswer.makeAnswer(to: offer, capabilities: bob, origin: offer.origin)
        #expect(answer.media.count == 2)
        #expect(answer.media[1].port == 0 && answer.media[1].media == "video")
        #expect(answer.media[0].direction == .recvonly)
        #expect(audio?.direction == .recvonly)
        #expect(audio?.ptime == 30)
        #expect(audio?.telephoneEventPayloadType == 101)
        #expect(answer.media[0].formats == ["0", "8", "101"])
        #expect(answer.media[0].crypto.first?.tag == 1)
        #expect(answer.groups.first?.mids == ["a0"])
        #expect(answer.media[0].mid == "a0")

        // Legacy hold (RFC 3264 §8.4): c=0.0.0.0.
        text = Self.offerText.replacingOccurrences(of: "c=IN IP4 192.0.2.10\r\nt=", with: "c=IN IP4 0.0.0.0\r\nt=")
        offer = try SessionDescription(parsing: text)
        #expect(
            try OfferAnswer.makeAnswer(to: offer, capabilities: bob, origin: offer.origin).audio?.direction == .recvonly
        )

        // Inactive → inactive.
        offer = try SessionDescription(
            parsing: Self.offerText.replacingOccurrences(of: "a=sendrecv", with: "a=inactive"))
        #expect(
            try OfferAnswer.makeAnswer(to: offer, capabilities: bob, origin: offer.origin).answer.media[0].direction
                == .inactive)

        // Audio port 0 → rejected; no audio left → negotiationFailed.
        offer = try SessionDescription(
            parsing: Self.offerText.replacingOccurrences(of: "m=audio 49170", with: "m=audio 0"))
        #expect(throws: MediaError(.negotiationFailed)) {
            try OfferAnswer.makeAnswer(to: offer, capabilities: bob, origin: offer.origin)
        }
        let (allRejected, none) = try OfferAnswer.makeAnswer(
            to: offer, capabilities: bob, origin: offer.origin, requireAudio: false)
        #expect(none == nil && allRejected.media.allSatisfy { $0.port == 0 })

        // SRTP offer but we have no keys, and a plain offer when SRTP is required.
        #expect(throws: MediaError(.negotiationFailed)) {
            try OfferAnswer.makeAnswer(
                to: try SessionDescription(parsing: Self.offerText),
                capabilities: Self.caps(port: 1, srtp: false),
                origin: offer.origin)
        }
        var strict = bob
        strict.requireSRTP = true
        offer = try SessionDescription(
            parsing: Self.offerText.replacingOccurrences(of: "RTP/SAVP 0 8", with: "RTP/AVP 0 8"))
        #expect(throws: MediaError(.negotiationFailed)) {
            try OfferAnswer.makeAnswer(to: offer, capabilities: strict, origin: offer.origin)
        }
        // No common codec.
        offer = try SessionDescription(
            parsing: Self.offerText.replacingOccurrences(of: "RTP/SAVP 0 8 97 101", with: "RTP/SAVP 97"))
        #expect(throws: MediaError(.negotiationFailed)) {
            try OfferAnswer.makeAnswer(to: offer, capabilities: bob, origin: offer.origin)
        }
    }

    @Test func dtlsOfferGetsActiveSetupAndOurFingerprint() throws {
        let text = Self.offerText.replacingOccurrences(of: "RTP/SAVP", with: "UDP/TLS/RTP/SAVPF")
        let offer = try SessionDescription(parsing: text)
        var bob = Self.caps(port: 5000, srtp: false)
        bob.fingerprint = CertificateFingerprint(hashFunction: "sha-256", bytes: [UInt8](repeating: 0xAB, count: 32))
        bob.ice = ICEParameters(
            ufrag: "abcd", pwd: "0123456789012345678901",
            candidates: [ICECandidate(foundation: "1", component: 1, priority: 100, address: "127.0.0.1", port: 5000)])
        let (answer, audio) = try OfferAnswer.makeAnswer(to: offer, capabilities: bob, origin: offer.origin)
        #expect(answer.media[0].setup == .active)
        #expect(answer.media[0].fingerprints.first == bob.fingerprint)
        #expect(answer.media[0].iceUfrag == "abcd" && answer.media[0].candidates.count == 1)
        #expect(audio?.remoteSetup == .actpass && audio?.remoteICE?.ufrag == "F7gI" && audio?.remoteFingerprint != nil)
        #expect(audio?.localKey == nil)
    }
}

extension String {
    fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
        var result = ""
        var rest = Substring(self)
        while let range = rest.range(of: target) {
            result += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}

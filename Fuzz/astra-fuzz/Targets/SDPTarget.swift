import Media
import SIPCore

/// SDP (RFC 8866) as it arrives in an INVITE or a 200: the parser, every attribute parser the
/// media layer uses (rtpmap, fingerprint, group, rtcp, crypto, candidate), and offer/answer
/// (RFC 3264) for plain RTP, SDES-SRTP (RFC 4568) and WebRTC (RFC 8829 / RFC 5763) — a hostile
/// offer goes straight into negotiation (pjsip CVE-2022-21723, sofia-sip CVE-2022-31003).
/// Seeds: the SDP bodies of the SIP vectors and our own offers and answers.
///
/// Invariants: parse → serialize → parse gives the same description; each attribute value
/// re-parses from its own canonical text; a printed description never shows an SDES key; the
/// answers we build to any offer serialize to SDP we can parse again.
enum SDPTarget {
    static let target = FuzzTarget(
        name: "sdp",
        summary: "SDP parser, attribute parsers, round trip, offer/answer incl. SDES and WebRTC (RFC 8866, RFC 3264)",
        maxLength: 8192, dictionary: "sdp",
        seeds: seeds, run: run)

    static let origin = SDPOrigin(sessionID: "1", sessionVersion: 1, address: "192.0.2.1")
    static let key = try! SRTPKeyMaterial(profile: .aesCM128HmacSHA1_80, keyAndSalt: Array(0..<30))

    static func capabilities() -> [AudioCapabilities] {
        let plain = AudioCapabilities(address: "192.0.2.1", port: 4000)
        var sdes = plain
        sdes.crypto = [key]
        sdes.requireSRTP = true
        var webrtc = plain
        webrtc.fingerprint = CertificateFingerprint(hashFunction: "sha-256", bytes: Array(0..<32))
        webrtc.ice = ICEParameters(ufrag: "LOCL", pwd: "localpassword0123456789A", candidates: [])
        webrtc.mid = "0"
        return [plain, sdes, webrtc]
    }

    static func run(_ bytes: [UInt8]) {
        guard let sdp = try? SessionDescription(parsing: String(decoding: bytes, as: UTF8.self)) else { return }
        let wire = sdp.serialized()
        let again = try? SessionDescription(parsing: wire)
        invariant(again == sdp, "SDP does not survive serialize → parse")
        checkAttributes(sdp)
        _ = sdp.groups
        for i in sdp.media.indices {
            _ = (sdp.effectiveConnection(of: i), sdp.effectiveDirection(of: i))
            let m = sdp.media[i]
            _ = (m.direction, m.rtpMaps)
            for f in m.formats { if let pt = UInt8(f) { _ = (m.encoding(of: pt), m.formatParameters(for: pt)) } }
        }
        negotiate(sdp)
    }

    static func checkAttributes(_ sdp: SessionDescription) {
        let printed = sdp.description
        // The same text outside any a=crypto line is no key (a fuzzed attribute may copy it).
        var withoutKeys = sdp
        withoutKeys.attributes.removeAll { $0.name == "crypto" }
        for i in withoutKeys.media.indices { withoutKeys.media[i].attributes.removeAll { $0.name == "crypto" } }
        let baseline = withoutKeys.serialized()
        for a in sdp.attributes + sdp.media.flatMap(\.attributes) {
            guard let value = a.value else { continue }
            switch a.name {
            case "rtpmap":
                if let map = try? RTPMap(parsing: value) {
                    invariant((try? RTPMap(parsing: map.value)) == map, "rtpmap round trip")
                }
            case "fingerprint":
                if let fp = try? CertificateFingerprint(parsing: value) {
                    invariant((try? CertificateFingerprint(parsing: fp.value)) == fp, "fingerprint round trip")
                }
            case "group":
                if let g = try? SDPGroup(parsing: value) {
                    invariant((try? SDPGroup(parsing: g.value)) == g, "group round trip")
                }
            case "rtcp":
                if let r = try? RTCPAttribute(parsing: value) {
                    invariant((try? RTCPAttribute(parsing: r.value)) == r, "rtcp round trip")
                }
            case "candidate":
                if let c = try? ICECandidate(parsing: value) {
                    invariant((try? ICECandidate(parsing: c.value)) == c, "candidate round trip")
                }
            case "crypto":
                guard let crypto = try? CryptoAttribute(parsing: value) else { continue }
                invariant((try? CryptoAttribute(parsing: crypto.value)) == crypto, "crypto round trip")
                let keyText = Base64.encode(crypto.keyAndSalt)
                if keyText.count >= 8 {
                    invariant(!"\(crypto)".contains(keyText), "a printed crypto attribute shows its key")
                    invariant(
                        baseline.contains(keyText) || !printed.contains(keyText), "a printed SDP shows an SDES key")
                }
            default:
                break
            }
        }
    }

    /// The description as a peer's offer to us, and as a peer's answer to each of our offers.
    static func negotiate(_ sdp: SessionDescription) {
        for caps in capabilities() {
            if let (answer, audio) = try? OfferAnswer.makeAnswer(to: sdp, capabilities: caps, origin: origin) {
                invariant(
                    (try? SessionDescription(parsing: answer.serialized())) == answer, "our answer does not re-parse")
                if let audio { _ = (audio.description, try? audio.requireWebRTC()) }
            }
            let offer = OfferAnswer.makeOffer(caps, origin: origin)
            if let audio = try? OfferAnswer.processAnswer(sdp, offer: offer, capabilities: caps) {
                _ = (audio.description, try? audio.requireWebRTC())
            }
        }
    }

    static func seeds() -> [[UInt8]] {
        var seeds = SeedFiles.sdpBodies()
        for caps in capabilities() {
            let offer = OfferAnswer.makeOffer(caps, origin: origin)
            seeds.append(Array(offer.serialized().utf8))
            if let (answer, _) = try? OfferAnswer.makeAnswer(to: offer, capabilities: caps, origin: origin) {
                seeds.append(Array(answer.serialized().utf8))
            }
        }
        return seeds
    }
}

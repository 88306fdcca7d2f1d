import SIPCore
import SIPDialog
import Testing

@testable import CallSession
@testable import Media

/// The WebRTC pieces of a ``Call`` that need no sockets: which offers are WebRTC, what our
/// WebRTC offer carries (RFC 8829-style profile), and the media-failure end reason.
@Suite struct CallWebRTCTests {
    typealias TestCall = Call<ContinuousClock>

    static let caps: AudioCapabilities = {
        let local = WebRTCLocalParameters(
            ice: ICEParameters(
                ufrag: "ufrg", pwd: "pwdpwdpwdpwdpwdpwdpwdpwd",
                candidates: [try! ICECandidate(parsing: "1 1 udp 2130706431 127.0.0.1 40000 typ host")]),
            fingerprint: CertificateFingerprint(hashFunction: "sha-256", bytes: Array(repeating: 0xAB, count: 32)))
        return .webRTC(address: "127.0.0.1", port: 40000, local: local)
    }()

    static let origin = SDPOrigin(sessionID: "1", sessionVersion: 0, address: "127.0.0.1")

    /// RFC 5763 §5 / RFC 8843 / RFC 5761 / RFC 8839: what `--media webrtc` puts in the INVITE.
    @Test func webRTCOfferCarriesTheProfile() {
        let sdp = TestCall.makeOffer(Self.caps, origin: Self.origin).serialized()
        for line in [
            "m=audio 40000 UDP/TLS/RTP/SAVPF 8 0 101", "a=group:BUNDLE 0", "a=mid:0", "a=rtcp-mux",
            "a=ice-ufrag:ufrg", "a=ice-pwd:pwdpwdpwdpwdpwdpwdpwdpwd",
            "a=candidate:1 1 udp 2130706431 127.0.0.1 40000 typ host", "a=end-of-candidates",
            "a=fingerprint:sha-256 AB:AB:", "a=setup:actpass",
        ] {
            #expect(sdp.contains(line), "\(line) missing in\n\(sdp)")
        }
        #expect(!sdp.contains("a=crypto"))
    }

    @Test func offersWebRTCLooksAtTheAudioTransport() {
        let webRTC = TestCall.makeOffer(Self.caps, origin: Self.origin).serialized()
        let plain = TestCall.makeOffer(AudioCapabilities(address: "127.0.0.1", port: 4000), origin: Self.origin)
            .serialized()
        #expect(TestCall.offersWebRTC(SessionBody(text: webRTC)))
        #expect(!TestCall.offersWebRTC(SessionBody(text: plain)))
        #expect(!TestCall.offersWebRTC(nil))
        #expect(!TestCall.offersWebRTC(SessionBody(text: "not sdp")))
    }

    /// Our answer to a WebRTC offer says `a=setup:active` (we are the DTLS client) and keeps
    /// BUNDLE/mid; a plain answerer (no certificate) finds nothing acceptable (→ 488).
    @Test func answersAWebRTCOfferOnlyInKind() throws {
        let offer = try SessionDescription(parsing: TestCall.makeOffer(Self.caps, origin: Self.origin).serialized())
        let (answer, audio) = try #require(TestCall.makeAnswer(to: offer, capabilities: Self.caps, origin: Self.origin))
        let text = answer.serialized()
        #expect(text.contains("a=setup:active") && text.contains("a=group:BUNDLE 0") && text.contains("a=mid:0"))
        #expect(audio.remoteSetup == .actpass && audio.rtcpMux)
        #expect(
            TestCall.makeAnswer(
                to: offer, capabilities: AudioCapabilities(address: "127.0.0.1", port: 4000),
                origin: Self.origin) == nil)
    }

    @Test func mediaFailedIsItsOwnEndReason() {
        let reason = CallEndReason.mediaFailed("DTLS-SRTP failed (dtls: fingerprintMismatch: …)")
        #expect(reason.name == "media_failed")
        #expect(!reason.isNormalClearing)
        #expect(reason.status == nil)
        #expect(reason.description.hasPrefix("media failed: DTLS-SRTP failed"))
    }
}

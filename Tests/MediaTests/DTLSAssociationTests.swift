import SIPCore
import Testing

@testable import Media

/// RFC 8842 §5: which re-offers keep the DTLS association of a ``WebRTCTransport`` (no
/// sockets: the transport is fed descriptions only) and what `a=setup` re-offers and
/// re-answers carry when the role is pinned.
@Suite struct DTLSAssociationTests {
    static let peerFingerprint = CertificateFingerprint(
        hashFunction: "sha-256", bytes: Array(repeating: 0xAB, count: 32))

    static func transport() throws -> WebRTCTransport {
        var configuration = WebRTCConfiguration()
        configuration.iceRole = .controlling
        return try WebRTCTransport(
            configuration: configuration, local: UDPSocket.Address(host: "127.0.0.1", port: 40000),
            ids: SeededIdentifierSource(seed: 8))
    }

    static func remote(_ t: WebRTCTransport, setup: SetupRole, fingerprint: CertificateFingerprint = peerFingerprint)
        throws
    {
        _ = try t.setRemote(
            ice: ICEParameters(ufrag: "peer", pwd: "peer-password-0123456789"), fingerprint: fingerprint,
            setup: setup, lite: false, now: .zero)
    }

    /// We offered actpass, the peer answered active: we are the DTLS server. A later actpass
    /// re-offer with the same certificate keeps that (our re-answer pins `passive`); a new
    /// certificate makes a new association with the RFC 5763 roles (we answer active: client).
    @Test func actpassReofferKeepsTheAssociationUnlessTheFingerprintChanges() throws {
        let t = try Self.transport()
        try Self.remote(t, setup: .active)
        #expect(t.dtlsRole == .server)
        try Self.remote(t, setup: .actpass)
        #expect(t.dtlsRole == .server)
        try Self.remote(t, setup: .passive)  // a real role flip: new association
        #expect(t.dtlsRole == .client)
        let other = CertificateFingerprint(hashFunction: "sha-256", bytes: Array(repeating: 0xCD, count: 32))
        try Self.remote(t, setup: .actpass, fingerprint: other)
        #expect(t.dtlsRole == .client)
    }

    /// A pinned role in `AudioCapabilities.setup`: an answer to `actpass` says it; a re-offer
    /// says it and the answer mirrors it (RFC 4145 roles).
    @Test func pinnedSetupInReoffersAndReanswers() throws {
        let local = WebRTCLocalParameters(
            ice: ICEParameters(ufrag: "ufrg", pwd: "pwdpwdpwdpwdpwdpwdpwdpwd"), fingerprint: Self.peerFingerprint)
        let caps = AudioCapabilities.webRTC(address: "127.0.0.1", port: 40000, local: local)
        let origin = SDPOrigin(sessionID: "1", sessionVersion: 1, address: "127.0.0.1")
        let actpassOffer = try SessionDescription(
            parsing: OfferAnswer.makeWebRTCOffer(caps, origin: origin).serialized())
        var pinned = caps
        pinned.setup = .passive
        let (answer, _) = try OfferAnswer.makeWebRTCAnswer(to: actpassOffer, capabilities: pinned, origin: origin)
        #expect(answer.serialized().contains("a=setup:passive"))
        let (defaultAnswer, _) = try OfferAnswer.makeWebRTCAnswer(to: actpassOffer, capabilities: caps, origin: origin)
        #expect(defaultAnswer.serialized().contains("a=setup:active"))
        var client = caps
        client.setup = .active
        let reoffer = try SessionDescription(parsing: OfferAnswer.makeWebRTCOffer(client, origin: origin).serialized())
        #expect(reoffer.serialized().contains("a=setup:active"))
        let (reanswer, audio) = try OfferAnswer.makeWebRTCAnswer(to: reoffer, capabilities: caps, origin: origin)
        #expect(reanswer.serialized().contains("a=setup:passive") && audio.remoteSetup == .active)
    }
}

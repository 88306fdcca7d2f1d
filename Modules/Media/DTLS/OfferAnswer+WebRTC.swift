/// The WebRTC profile of offer/answer (as Asterisk `webrtc=yes` expects, WEBRTC-NOTES):
/// `UDP/TLS/RTP/SAVPF`, rtcp-mux, `a=mid` + `a=group:BUNDLE` of the one audio stream, ICE
/// ufrag/pwd/candidates (all of them: no trickle, so `a=end-of-candidates`), `a=fingerprint`
/// and `a=setup` (RFC 5763 §5: offers say `actpass`, answers to it `active`).
extension AudioCapabilities {
    public static func webRTC(address: String, port: UInt16, local: WebRTCLocalParameters) -> AudioCapabilities {
        var c = AudioCapabilities(address: address, port: port)
        c.fingerprint = local.fingerprint
        c.setup = .actpass
        c.ice = local.ice
        c.mid = "0"
        c.rtcpMux = true
        c.requireSRTP = true
        return c
    }
}

extension OfferAnswer {
    /// A WebRTC offer: ``makeOffer(_:origin:)`` with `a=end-of-candidates` (RFC 8840 §4.1).
    public static func makeWebRTCOffer(_ caps: AudioCapabilities, origin: SDPOrigin) -> SessionDescription {
        var sdp = makeOffer(caps, origin: origin)
        endCandidates(&sdp)
        return sdp
    }

    /// A WebRTC answer; fails unless the offer is a usable WebRTC audio stream.
    public static func makeWebRTCAnswer(
        to offer: SessionDescription, capabilities caps: AudioCapabilities, origin: SDPOrigin
    ) throws(MediaError) -> (answer: SessionDescription, audio: NegotiatedAudio) {
        var (answer, audio) = try makeAnswer(to: offer, capabilities: caps, origin: origin)
        guard let audio else { throw MediaError(.negotiationFailed, "no audio stream") }
        try audio.requireWebRTC()
        endCandidates(&answer)
        return (answer, audio)
    }

    private static func endCandidates(_ sdp: inout SessionDescription) {
        for i in sdp.media.indices where sdp.media[i].port != 0 && sdp.media[i].iceUfrag != nil {
            sdp.media[i].attributes.append(SDPAttribute("end-of-candidates"))
        }
    }
}

extension NegotiatedAudio {
    /// What WebRTC media needs from the peer's description: ICE credentials, a fingerprint,
    /// a setup role that leaves us one, and rtcp-mux (one socket).
    public func requireWebRTC() throws(MediaError) {
        guard let ice = remoteICE, !ice.ufrag.isEmpty, !ice.pwd.isEmpty else {
            throw MediaError(.negotiationFailed, "WebRTC: the peer sent no a=ice-ufrag/a=ice-pwd")
        }
        guard let fp = remoteFingerprint, DTLSTransport.hash(fp.hashFunction) != nil else {
            throw MediaError(.negotiationFailed, "WebRTC: the peer sent no usable a=fingerprint")
        }
        guard let setup = remoteSetup, DTLSRole(remoteSetup: setup) != nil else {
            throw MediaError(.negotiationFailed, "WebRTC: the peer's a=setup leaves no DTLS role")
        }
        guard rtcpMux else { throw MediaError(.negotiationFailed, "WebRTC: the peer refused rtcp-mux") }
    }
}

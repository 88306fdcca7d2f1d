import Media
import SIPDialog

/// WebRTC media for a ``Call`` (``CallOptions/mediaMode``): the offer or answer carries
/// `UDP/TLS/RTP/SAVPF` with ICE credentials and candidates, `a=fingerprint`, `a=setup`
/// (`actpass` in offers, RFC 5763 §5), rtcp-mux, `a=mid` and BUNDLE (OfferAnswer+WebRTC). The
/// media session starts with the call, before any SDP answer, so that the peer's early
/// connectivity checks and DTLS ClientHello are answered (WEBRTC-NOTES); audio flows once ICE
/// has selected a pair and DTLS has keyed SRTP. A failure of either hangs the call up with
/// ``CallEndReason/mediaFailed(_:)``.
extension Call {
    /// Whether this call runs WebRTC media (decided at creation).
    var isWebRTC: Bool { capabilities.fingerprint != nil }

    /// The profile reported in the answered event.
    var mediaProfile: CallMediaProfile {
        isWebRTC ? .webRTC : negotiated?.localKey != nil ? .sdes : .rtp
    }

    /// Whether an SDP offer's first audio stream asks for DTLS-SRTP (`UDP/TLS/RTP/SAVP[F]`).
    static func offersWebRTC(_ body: SessionBody?) -> Bool {
        guard let body, let text = String(validating: body.bytes, as: UTF8.self),
            let sdp = try? SessionDescription(parsing: text),
            let audio = sdp.media.first(where: { $0.media == "audio" && $0.port != 0 })
        else { return false }
        return audio.proto.hasPrefix("UDP/TLS/RTP/SAVP")
    }

    /// An offer from our capabilities: WebRTC (with `a=end-of-candidates`) when they carry a
    /// certificate fingerprint.
    static func makeOffer(_ caps: AudioCapabilities, origin: SDPOrigin) -> SessionDescription {
        caps.fingerprint != nil
            ? OfferAnswer.makeWebRTCOffer(caps, origin: origin) : OfferAnswer.makeOffer(caps, origin: origin)
    }

    /// Our answer and the negotiated stream, nil when nothing is acceptable (→ 488).
    static func makeAnswer(
        to offer: SessionDescription, capabilities caps: AudioCapabilities, origin: SDPOrigin
    ) -> (SessionDescription, NegotiatedAudio)? {
        if caps.fingerprint != nil {
            return try? OfferAnswer.makeWebRTCAnswer(to: offer, capabilities: caps, origin: origin)
        }
        guard let (answer, audio) = try? OfferAnswer.makeAnswer(to: offer, capabilities: caps, origin: origin),
            let audio
        else { return nil }
        return (answer, audio)
    }

    func answeredEvent(_ audio: NegotiatedAudio) -> CallEvent {
        .answered(
            codec: audio.codec.rawValue, srtp: audio.localKey != nil || isWebRTC,
            telephoneEvent: audio.telephoneEventPayloadType != nil, media: mediaProfile)
    }

    /// Milliseconds from the answer to `instant` (nil before the answer).
    func sinceAnswer(_ instant: C.Instant?) -> Double? {
        guard let answeredAt, let instant, answeredAt <= instant else { return nil }
        return CallStatistics.milliseconds(answeredAt.duration(to: instant))
    }

    /// WebRTC: starts the session (socket, ICE agent, media clock) before the offer or answer
    /// is exchanged; nothing is sent until DTLS has keyed SRTP.
    func startWebRTCMedia() async {
        guard isWebRTC, !mediaRunning else { return }
        mediaRunning = true
        await media.start(remote: nil, source: source, sink: audioSink)
        startRTPWatch()
    }

    /// After the answer: ICE + DTLS must secure the media within ``CallOptions/webRTCTimeout``.
    func armWebRTCDeadline() {
        guard isWebRTC, !webRTCDeadlineArmed else { return }
        webRTCDeadlineArmed = true
        let clock = self.clock, limit = options.webRTCTimeout
        background.append(
            Task { [weak self] in
                do { try await clock.sleep(for: limit) } catch { return }
                await self?.webRTCDeadlinePassed(limit)
            })
    }

    private func webRTCDeadlinePassed(_ limit: Duration) async {
        guard dtlsConnectedAt == nil, machine.state != .ending, machine.state != .ended else { return }
        let what = iceConnectedAt == nil ? "ICE" : "DTLS"
        await mediaFailed("\(what) did not complete within \(limit.components.seconds) s of the answer")
    }

    /// ICE / DTLS progress from the media session.
    func webRTCEvent(_ event: WebRTCEvent) async {
        switch event {
        case .selectedPair(let local, let remote):
            if reportRestartedPair(local: local, remote: remote) { return }
            guard iceConnectedAt == nil else { return }
            iceConnectedAt = clock.now
            sink.yield(
                .iceConnected(
                    local: "\(local.host):\(local.port)", remote: "\(remote.host):\(remote.port)",
                    sinceAnswer: sinceAnswer(iceConnectedAt)))
        case .dtlsConnected(let profile, let role):
            dtlsRole = role
            guard dtlsConnectedAt == nil else { return }
            dtlsConnectedAt = clock.now
            sink.yield(
                .dtlsConnected(
                    profile: profile.sdesName, role: role.rawValue, sinceAnswer: sinceAnswer(dtlsConnectedAt)))
        case .dtlsFailed(let error) where error.code == .closed && dtlsConnectedAt != nil:
            // The peer closed the association (close_notify as it hangs up, RFC 5246 §7.2.1):
            // its BYE follows; the RTP timeout covers a peer that never sends one.
            break
        case .dtlsFailed(let error):
            await mediaFailed("DTLS-SRTP failed (\(error))")
        case .iceFailed:
            await mediaFailed("ICE failed: no candidate pair answered (RFC 8445 §7.2.5.3)")
        case .consentLost:
            await mediaFailed("ICE consent lost (RFC 7675 §5.1)")
        case .turnFailed(let error):
            await turnFailed(error)
        case .relayAllocated:
            break
        case .iceStateChanged, .iceRoleChanged:
            break
        }
    }

    /// Hangs the call up (BYE after the answer, CANCEL or 603 before it) for a media failure.
    private func mediaFailed(_ reason: String) async {
        await run(machine.hangUp(reason: .mediaFailed(reason)))
    }
}

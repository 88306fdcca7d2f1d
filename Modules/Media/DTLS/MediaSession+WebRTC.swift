import SIPCore

/// WebRTC mode of ``MediaSession`` (``MediaSessionConfiguration/webRTC``): the session's one
/// socket carries STUN, DTLS and SRTP/SRTCP, demultiplexed by first byte (RFC 7983). Media is
/// sent only after ICE has selected a pair and DTLS has produced the SRTP keys, and stops
/// when consent is lost (RFC 7675).
extension MediaSession {
    /// Our ICE credentials, candidates and certificate fingerprint for the SDP (see
    /// ``AudioCapabilities/webRTC(address:port:local:)``). With a STUN server configured, waits
    /// (after ``start(remote:remoteRTCP:source:sink:)``) until server-reflexive gathering
    /// completes: a response from the server, or the ICE agent's
    /// ``ICEAgent/Configuration/gatheringTimeout`` (500 ms by default) for a dead or slow one
    /// — there is no trickle ICE, so the SDP goes out with what was gathered by then. Nil when
    /// the session is not in WebRTC mode.
    public func webRTCLocalParameters() async -> WebRTCLocalParameters? {
        guard let webrtc else { return nil }
        if running && !webrtc.gatheringComplete {
            await withCheckedContinuation { gatheringWaiters.append($0) }
        }
        return self.webrtc?.localParameters
    }

    /// Whether server-reflexive gathering is still running (WebRTC mode with a STUN server).
    public var isGathering: Bool { running && webrtc.map { !$0.gatheringComplete } ?? false }

    /// The DTLS role of the current association (nil before the remote description): what a
    /// re-offer or re-answer says in `a=setup` to keep it (RFC 8842 §5.5, §5.3).
    public var dtlsRole: DTLSRole? { webrtc?.dtlsRole }

    func resumeGatheringWaiters() {
        let waiters = gatheringWaiters
        gatheringWaiters = []
        for waiter in waiters { waiter.resume() }
    }

    /// ICE restart (RFC 8445 §9, a re-INVITE): new local credentials for the new offer or
    /// answer; media stays on the current pair until the new checks nominate one.
    public func restartICE() -> WebRTCLocalParameters? {
        guard let webrtc else { return nil }
        let (u, p) = ICEAgent.makeCredentials()
        perform(webrtc.restartICE(ufrag: u, pwd: p, now: elapsed))
        return webrtc.localParameters
    }

    /// The selected ICE state, for status lines.
    public var iceState: ICEAgent.State? { webrtc?.ice.state }

    /// Remote description → ICE checks and the DTLS role (called by ``apply(_:)``).
    func applyWebRTC(_ negotiated: NegotiatedAudio) throws(MediaError) {
        guard let webrtc else { return }
        try negotiated.requireWebRTC()
        do {
            perform(
                try webrtc.setRemote(
                    ice: negotiated.remoteICE!, fingerprint: negotiated.remoteFingerprint!,
                    setup: negotiated.remoteSetup!, lite: negotiated.remoteICELite, now: elapsed))
        } catch {
            eventContinuation.yield(.webRTC(.dtlsFailed(error)))
            throw MediaError(.negotiationFailed, error.description)
        }
    }

    /// Starts gathering and the timer loop (from ``start(remote:remoteRTCP:source:sink:)``).
    func startWebRTC() {
        guard let webrtc else { return }
        perform(webrtc.start(now: elapsed))
        tasks.append(Task { [weak self] in await self?.runWebRTCTimers() })
    }

    func stopWebRTC() {
        guard let webrtc else { return }
        perform(webrtc.close())
    }

    func receiveWebRTC(_ bytes: [UInt8], kind: PacketKind, from source: UDPSocket.Address?) {
        guard let webrtc, let source else { return }
        switch kind {
        case .stun: perform(webrtc.receiveSTUN(bytes, from: source, now: elapsed))
        case .turnChannel: perform(webrtc.receiveChannelData(bytes, from: source, now: elapsed))
        default: perform(webrtc.receiveDTLS(bytes, from: source, now: elapsed))
        }
    }

    /// Media for the peer through the TURN relay when the ICE pair in use is relayed (nil:
    /// send it directly).
    func relayedMedia(_ packet: UnsafeRawBufferPointer, to peer: UDPSocket.Address) -> Bool? {
        guard let webrtc, webrtc.mediaRelayed else { return nil }
        let outputs = webrtc.relay(Array(packet), to: peer, now: elapsed)
        perform(outputs)
        return !outputs.isEmpty
    }

    /// Why there is no relayed candidate (TURN allocation refused, timed out or lost); nil when
    /// there is one or no TURN server is configured.
    public var relayFailure: TURNError? { webrtc?.relayFailure }

    /// Sleeps until the transport's next deadline (at most 5 ms, so inputs that move it
    /// earlier are honoured) and runs its timers.
    private func runWebRTCTimers() async {
        while running && !Task.isCancelled {
            guard let webrtc else { return }
            let now = elapsed
            let wake = min(webrtc.nextDeadline ?? (now + .milliseconds(5)), now + .milliseconds(5))
            if wake > now {
                do { try await Task.sleep(for: wake - now) } catch { return }
            }
            perform(webrtc.tick(now: elapsed))
        }
    }

    func perform(_ outputs: [WebRTCTransport.Output]) {
        for output in outputs {
            switch output {
            case .send(let bytes, let to): rtpSocket.send(bytes, to: to)
            case .relayedMedia(let bytes, let from): handleRelayed(bytes, from: from)
            case .event(let e): eventContinuation.yield(.webRTC(e))
            case .secured(let keys, let to):
                do {
                    outbound = try SRTPContext(key: keys.local, direction: .outbound)
                    inbound = try SRTPContext(key: keys.remote, direction: .inbound)
                } catch {
                    eventContinuation.yield(.webRTC(.dtlsFailed(DTLSError(.handshakeFailed, error.description))))
                    continue
                }
                remote = to
                remoteRTCP = to
            case .remoteChanged(let to):
                remote = to
                remoteRTCP = to
            case .stopSending:
                remote = nil
                remoteRTCP = nil
            case .gatheringDone:
                resumeGatheringWaiters()
            }
        }
    }
}

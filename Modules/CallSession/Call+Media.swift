import Media
import SIPCore
import SIPDialog

extension Call {
    // MARK: Offer / answer (RFC 3264)

    /// A new offer with `direction` (RFC 3264 §8: the o= version increments), kept as ``currentOffer``.
    func nextOffer(direction: MediaDirection) -> SessionBody {
        var caps = capabilities
        caps.direction = direction
        if let audio = negotiated {  // re-offer: keep the stream's codec and keys (§8.3.2)
            caps.codecs = [audio.codec]
            caps.crypto = audio.localKey.map { [$0] } ?? []
            caps.telephoneEventPayloadType = audio.telephoneEventPayloadType
            if let setup = pinnedSetup { caps.setup = setup }
        }
        sessionVersion += 1
        let offer = Self.makeOffer(caps, origin: origin)
        currentOffer = offer
        return SessionBody(text: offer.serialized())
    }

    var origin: SDPOrigin {
        SDPOrigin(sessionID: sessionID, sessionVersion: sessionVersion, address: options.mediaHost)
    }

    /// Our answer to the peer's offer, applied to the media session (RFC 3264 §6); nil when
    /// no stream is acceptable (the caller answers 488).
    func answerBody(for offer: SessionBody, direction: MediaDirection = .sendrecv) async -> SessionBody? {
        guard let text = String(validating: offer.bytes, as: UTF8.self),
            let sdp = try? SessionDescription(parsing: text)
        else { return nil }
        var caps = capabilities
        caps.direction = direction
        if let audio = negotiated {
            caps.crypto = audio.localKey.map { [$0] } ?? caps.crypto
            if let setup = pinnedSetup { caps.setup = setup }
        }
        sessionVersion += 1
        guard var (answer, audio) = Self.makeAnswer(to: sdp, capabilities: caps, origin: origin) else { return nil }
        var remake = false
        if caps.setup != .actpass, let old = negotiated?.remoteFingerprint, audio.remoteFingerprint != old {
            caps.setup = .actpass  // a new certificate: a new association, RFC 5763 §5 roles (RFC 8842 §5.3)
            remake = true
        }
        if isICERestart(audio) {
            // The peer restarted ICE (RFC 8839 §4.4.1.1.1): our answer carries new credentials too.
            await restartLocalICE(byPeer: true)
            caps.ice = capabilities.ice
            remake = true
        }
        if remake {
            guard let again = Self.makeAnswer(to: sdp, capabilities: caps, origin: origin) else { return nil }
            (answer, audio) = again
        }
        guard await applyNegotiated(audio) else { return nil }
        return SessionBody(text: answer.serialized())
    }

    /// The peer's answer to our offer: apply it and make sure media runs.
    func applyAnswer(_ body: SessionBody, early: Bool) async {
        guard let offer = currentOffer,
            let text = String(validating: body.bytes, as: UTF8.self),
            let sdp = try? SessionDescription(parsing: text)
        else { return }
        let audio: NegotiatedAudio
        do {
            audio = try OfferAnswer.processAnswer(sdp, offer: offer, capabilities: capabilities)
        } catch {
            await run(machine.hangUp(reason: .failed(status: 488, reason: "unusable answer: \(error)")))
            return
        }
        let first = negotiated == nil
        guard await applyNegotiated(audio) else { return }
        if !early && machine.role == .caller && (first || answeredAt != nil && !reportedAnswer) {
            reportedAnswer = true
            sink.yield(answeredEvent(audio))
        }
    }

    /// A re-INVITE / UPDATE offer from the peer (hold, resume, new address), RFC 3264 §8.
    func answerReoffer(_ body: SessionBody?) async {
        guard let body else {
            await execute((try? usage.answerOffer(nextOffer(direction: .sendrecv))) ?? [])
            return
        }
        guard let answer = await answerBody(for: body) else {
            await execute((try? usage.rejectOffer(status: 488)) ?? [])
            return
        }
        await execute((try? usage.answerOffer(answer)) ?? [])
        if let direction = negotiated?.direction { await run(machine.peerDirectionChanged(direction)) }
    }

    /// Applies a negotiated stream and starts media the first time (RFC 3550).
    private func applyNegotiated(_ audio: NegotiatedAudio) async -> Bool {
        do {
            try await media.apply(audio)
        } catch {
            await run(machine.hangUp(reason: .failed(status: 488, reason: "media: \(error)")))
            return false
        }
        negotiated = audio
        if !mediaRunning {
            mediaRunning = true
            await media.start(remote: nil, source: source, sink: audioSink)
            startRTPWatch()
        }
        return true
    }

    // MARK: Hold, DTMF

    /// Puts the call on hold with a re-INVITE (RFC 3264 §8.4: `sendonly`, or `inactive`).
    public func hold(direction: MediaDirection = .sendonly) async {
        guard machine.state == .active else { return }
        let offer = nextOffer(direction: direction)
        guard let actions = try? usage.reinvite(offer: offer) else { return }
        machine.reofferSent(direction: direction)
        await execute(actions)
    }

    /// Resumes a held call (`sendrecv` re-INVITE).
    public func resume() async {
        guard machine.state == .held else { return }
        let offer = nextOffer(direction: .sendrecv)
        guard let actions = try? usage.reinvite(offer: offer) else { return }
        machine.reofferSent(direction: .sendrecv)
        await execute(actions)
    }

    /// Sends DTMF: RFC 4733 events when telephone-event was negotiated, else SIP INFO with
    /// `application/dtmf-relay` (one request per digit, in order).
    public func sendDTMF(_ digits: [DTMFDigit]) async {
        guard machine.state == .active || machine.state == .held else { return }
        if negotiated?.telephoneEventPayloadType != nil {
            await media.sendDTMF(digits)
            return
        }
        for digit in digits {
            let body = SessionBody(text: "Signal=\(digit)\r\nDuration=160\r\n", contentType: "application/dtmf-relay")
            if let actions = try? usage.sendInfo(body) { await execute(actions) }
            try? await clock.sleep(for: .milliseconds(250))
        }
    }

    /// An INFO with `application/dtmf-relay` (`Signal=5`) becomes a DTMF event.
    func reportInfoDTMF(_ body: SessionBody) {
        guard body.contentType.lowercased().hasPrefix("application/dtmf"),
            let text = String(validating: body.bytes, as: UTF8.self)
        else { return }
        for line in text.split(whereSeparator: { $0 == "\r" || $0 == "\n" }) {
            let parts = line.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingSpaces.lowercased() == "signal",
                let character = parts[1].trimmingSpaces.first, let digit = DTMFDigit(character)
            else { continue }
            sink.yield(.dtmf(digit, via: "info"))
        }
    }

    // MARK: Media events and RTP timeout

    func startMediaPump() {
        let events = media.events
        background.append(
            Task { [weak self] in
                for await event in events {
                    guard let self else { return }
                    await self.mediaEvent(event)
                }
            })
    }

    private func mediaEvent(_ event: MediaEvent) async {
        switch event {
        case .dtmf(.began(let digit)): sink.yield(.dtmf(digit, via: "rfc4733"))
        case .inBandDTMF(let digit): sink.yield(.dtmf(digit, via: "inband"))
        case .remoteSource:
            if !reportedFirstRTP {
                reportedFirstRTP = true
                firstRTPAt = clock.now
                sink.yield(.firstRTP(sinceAnswer: sinceAnswer(firstRTPAt)))
            }
        case .sourceEnded: sink.yield(.sourceEnded)
        case .webRTC(let event): await webRTCEvent(event)
        default: break
        }
    }

    func startRTPWatch() {
        guard let limit = options.rtpTimeout else { return }
        let clock = self.clock
        background.append(
            Task { [weak self] in
                while !Task.isCancelled {
                    do { try await clock.sleep(for: .seconds(1)) } catch { return }
                    guard let self, await self.checkRTP(limit: limit) else { return }
                }
            })
    }

    /// Whether to keep watching; hangs up when an active, receiving call got no RTP for `limit`.
    private func checkRTP(limit: Duration) async -> Bool {
        guard machine.state != .ended else { return false }
        let received = await media.statistics.packetsReceived
        let now = clock.now
        let receiving = negotiated.map { $0.direction == .sendrecv || $0.direction == .recvonly } ?? false
        if lastRTPProgress == nil || lastRTPProgress!.count != received || !receiving || machine.state != .active {
            lastRTPProgress = (received, now)
            return true
        }
        if lastRTPProgress!.at.duration(to: now) >= limit {
            await run(machine.rtpTimedOut())
            return false
        }
        return true
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var s = self
        while s.first == " " || s.first == "\t" { s.removeFirst() }
        while s.last == " " || s.last == "\t" { s.removeLast() }
        return s
    }
}

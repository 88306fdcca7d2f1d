import AstraTestSupport
import SIPCore
import Synchronization
import Testing

@testable import Media

/// Two media sessions over real UDP sockets on 127.0.0.1 (real time, ~1–3 s each).
@Suite struct MediaSessionTests {
    static func configuration(srtp: SRTPKeys? = nil) -> MediaSessionConfiguration {
        var c = MediaSessionConfiguration()
        c.srtp = srtp
        c.rtcpInterval = .milliseconds(200)
        c.dtmfToneDuration = .milliseconds(60)
        c.dtmfPause = .milliseconds(40)
        return c
    }

    /// Waits until `condition` holds on the session's statistics or `timeout` passes.
    static func wait(
        for session: MediaSession<ContinuousClock>, timeout: Duration = .seconds(5),
        _ condition: (MediaStatistics) -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition(await session.statistics) { return }
            try await Task.sleep(for: .milliseconds(20))  // poll interval of a bounded wait
        }
    }

    /// Checks what B recorded: a 1 kHz tone of `frames` × 20 ms at full level.
    static func checkTone(_ samples: [Int16], frames: Int) {
        // Full-level frames (concealment fades by 6 dB per frame, silence is 0).
        let levels = stride(from: 0, to: samples.count - 159, by: 160).map { Goertzel.energy(samples[$0..<($0 + 160)]) }
        let peak = levels.max() ?? 0
        let toneFrames = levels.filter { $0 > 0.7 * peak }.count
        #expect(toneFrames == frames, "received tone duration \(toneFrames * 20) ms")
        let toneSamples = stride(from: 0, to: samples.count - 159, by: 160).filter {
            Goertzel.energy(samples[$0..<($0 + 160)]) > 0.7 * peak
        }
        .flatMap { samples[$0..<($0 + 160)] }
        let candidates: [Double] = [300, 500, 800, 950, 1000, 1050, 1200, 2000, 3000]
        #expect(Goertzel.dominant(toneSamples, candidates: candidates, sampleRate: 8000) == 1000)
        let p1000 = Goertzel.power(toneSamples, frequency: 1000, sampleRate: 8000)
        #expect(p1000 > 0.45 * Goertzel.energy(toneSamples))  // almost all energy at 1 kHz (A²/4 vs A²/2)
    }

    /// Plain RTP, with the RTP sockets unconnected (default) and connected (`connectSocket`).
    @Test(arguments: [false, true])
    func plainRTPToneLoopbackWithRTCP(connected: Bool) async throws {
        var c = Self.configuration()
        c.connectSocket = connected
        let a = try MediaSession(configuration: c, clock: ContinuousClock(), ids: SeededIdentifierSource(seed: 1))
        let b = try MediaSession(configuration: c, clock: ContinuousClock(), ids: SeededIdentifierSource(seed: 2))
        let sink = RecordingSink()
        await b.start(remote: a.localAddress, sink: sink)
        await a.start(
            remote: b.localAddress,
            source: ToneGenerator(frequencies: [1000], amplitude: 10000, duration: .milliseconds(600)))
        try await Self.wait(for: b) { $0.jitterBuffer.played >= 30 && $0.rtcpReceived >= 2 }
        try await Self.wait(for: a) { $0.roundTripTime != nil }
        let sa = await a.statistics
        let sb = await b.statistics
        await a.stop()
        await b.stop()
        #expect(sa.packetsSent == 30 && sb.packetsReceived == 30)
        #expect(sb.jitterBuffer.played == 30 && sb.jitterBuffer.late == 0)
        #expect(sb.cumulativeLost == 0)
        #expect(sa.rtcpSent >= 1 && sb.rtcpReceived >= 1)
        let rtt = try #require(sa.roundTripTime)
        #expect(rtt < .milliseconds(50))
        Self.checkTone(sink.samples, frames: 30)
    }

    @Test(arguments: [SRTPProfile.aesCM128HmacSHA1_80, .aeadAES128GCM])
    func srtpToneLoopbackDropsAndCountsTamperedAndReplayedPackets(profile: SRTPProfile) async throws {
        let keyA = SRTPKeyMaterial.random(profile)
        let keyB = SRTPKeyMaterial.random(profile)
        let a = try MediaSession(
            configuration: Self.configuration(srtp: SRTPKeys(local: keyA, remote: keyB)), clock: ContinuousClock(),
            ids: SeededIdentifierSource(seed: 3))
        let b = try MediaSession(
            configuration: Self.configuration(srtp: SRTPKeys(local: keyB, remote: keyA)), clock: ContinuousClock(),
            ids: SeededIdentifierSource(seed: 4))
        // A man in the middle between A and B: forwards everything, replays packet 10 and
        // sends a tampered copy of packet 20 (one payload bit flipped) before the genuine one.
        let relay = try UDPSocket(bindHost: "127.0.0.1")
        let target = b.localAddress
        let relayTask = Task.detached {
            var buffer = [UInt8](repeating: 0, count: 2048)
            var rtpCount = 0
            let end = ContinuousClock.now + .seconds(4)
            while ContinuousClock.now < end && !Task.isCancelled {
                let n = buffer.withUnsafeMutableBytes { relay.receive(into: $0) as Int }
                if n <= 0 {
                    try? await Task.sleep(for: .milliseconds(1))  // poll interval of a bounded wait
                    continue
                }
                var packet = Array(buffer[0..<n])
                if PacketDemultiplexer.classify(packet) == .rtp {
                    rtpCount += 1
                    if rtpCount == 20 {
                        var forged = packet
                        forged[30] ^= 0x04
                        relay.send(forged, to: target)
                    }
                    relay.send(packet, to: target)
                    if rtpCount == 10 { relay.send(packet, to: target) }
                } else {
                    relay.send(packet, to: target)
                }
                packet.removeAll()
            }
        }
        let sink = RecordingSink()
        await b.start(remote: a.localAddress, sink: sink)
        await a.start(
            remote: relay.localAddress,
            source: ToneGenerator(frequencies: [1000], amplitude: 10000, duration: .milliseconds(600)))
        try await Self.wait(for: b) { $0.jitterBuffer.played >= 30 }
        let sb = await b.statistics
        await a.stop()
        await b.stop()
        relayTask.cancel()
        #expect(sb.srtpAuthenticationFailures == 1)
        #expect(sb.srtpReplays == 1)
        #expect(sb.packetsReceived == 30 && sb.jitterBuffer.played == 30 && sb.jitterBuffer.duplicates == 0)
        Self.checkTone(sink.samples, frames: 30)
    }

    /// Separate RTP and RTCP sockets (no rtcp-mux): RTP on an even port, RTCP on the next one
    /// (RFC 3550 §11); RTCP reaches the RTCP port and RTT is known.
    @Test func rtpAndRTCPOnSeparatePorts() async throws {
        var c = Self.configuration()
        c.rtcpMux = false
        let a = try MediaSession(configuration: c, clock: ContinuousClock(), ids: SeededIdentifierSource(seed: 21))
        let b = try MediaSession(configuration: c, clock: ContinuousClock(), ids: SeededIdentifierSource(seed: 22))
        #expect(a.localAddress.port % 2 == 0)
        #expect(await a.localRTCPAddress.port == a.localAddress.port + 1)
        let sink = RecordingSink()
        await b.start(remote: a.localAddress, remoteRTCP: await a.localRTCPAddress, sink: sink)
        await a.start(
            remote: b.localAddress, remoteRTCP: await b.localRTCPAddress,
            source: ToneGenerator(frequencies: [1000], amplitude: 10000, duration: .milliseconds(400)))
        try await Self.wait(for: a) { $0.roundTripTime != nil }
        try await Self.wait(for: b) { $0.packetsReceived >= 20 }
        let sa = await a.statistics
        let sb = await b.statistics
        await a.stop()
        await b.stop()
        #expect(sa.roundTripTime != nil && sb.rtcpReceived >= 1 && sa.rtcpReceived >= 1)
        #expect(sa.rtcpReceivedOnRTCPPort == sa.rtcpReceived && sb.rtcpReceivedOnRTCPPort == sb.rtcpReceived)
        #expect(sb.packetsReceived == 20 && sb.malformedPackets == 0)
    }

    /// RFC 5761 §5.1.3: both ends bind RTP + 1 before offer/answer; `mux` says whether the
    /// answerer accepts rtcp-mux. Declined: RTCP flows between the + 1 ports both ways and each
    /// side knows the round trip. Accepted: + 1 is given back and RTCP shares the RTP port.
    @Test(arguments: [false, true]) func rtcpMuxDeclinedOrAgreedByTheAnswer(mux: Bool) async throws {
        let ids = SeededIdentifierSource(seed: 53)
        let a = try MediaSession(configuration: Self.configuration(), clock: ContinuousClock(), ids: ids)
        let b = try MediaSession(configuration: Self.configuration(), clock: ContinuousClock(), ids: ids)
        #expect(await a.localRTCPAddress.port == a.localAddress.port + 1)
        let alice = AudioCapabilities(address: "127.0.0.1", port: a.localAddress.port)  // offers rtcp-mux
        var bob = AudioCapabilities(address: "127.0.0.1", port: b.localAddress.port)
        bob.rtcpMux = mux
        let origin = SDPOrigin(sessionID: "9", sessionVersion: 1, address: "127.0.0.1")
        let (aliceAudio, bobAudio) = try await Self.negotiate(alice, a, bob, b, origin: origin)
        #expect(aliceAudio.rtcpMux == mux && bobAudio.rtcpMux == mux)
        #expect(aliceAudio.remoteRTCPPort == (mux ? b.localAddress.port : b.localAddress.port + 1))
        #expect(await a.localRTCPAddress.port == (mux ? a.localAddress.port : a.localAddress.port + 1))
        if mux {  // + 1 was released: it can be bound again
            _ = try UDPSocket(bindHost: "127.0.0.1", port: a.localAddress.port + 1)
        }
        await b.start(remote: nil)
        await a.start(remote: nil, source: ToneGenerator(frequencies: [1000], amplitude: 10000))
        try await Self.wait(for: a) { $0.roundTripTime != nil }
        try await Self.wait(for: b) { $0.roundTripTime != nil }
        let sa = await a.statistics, sb = await b.statistics
        await a.stop()
        await b.stop()
        #expect(sa.rtcpReceivedOnRTCPPort == (mux ? 0 : sa.rtcpReceived) && sa.rtcpReceived >= 1)
        #expect(sb.rtcpReceivedOnRTCPPort == (mux ? 0 : sb.rtcpReceived) && sb.rtcpReceived >= 1)
    }

    /// Symmetric RTP: A starts with no destination (media before the answer) and answers to
    /// where B's media comes from.
    @Test func latchingSendsBackWhereMediaComesFrom() async throws {
        var c = Self.configuration()
        c.latchRemote = true
        let a = try MediaSession(configuration: c, clock: ContinuousClock(), ids: SeededIdentifierSource(seed: 31))
        let b = try MediaSession(configuration: Self.configuration(), clock: ContinuousClock(), ids: SeededIdentifierSource(seed: 32))
        let sink = RecordingSink()
        await a.start(remote: nil, source: ToneGenerator(frequencies: [1000], amplitude: 10000))
        await b.start(remote: a.localAddress, sink: sink)
        try await Self.wait(for: b) { $0.packetsReceived >= 10 }
        let sb = await b.statistics
        await a.stop()
        await b.stop()
        #expect(sb.packetsReceived >= 10)
    }

    /// The call layer's offer/answer (RFC 3264) through SDP text: `alice` offers, `bob` answers;
    /// each result is applied to its session and returned.
    static func negotiate(
        _ alice: AudioCapabilities, _ a: MediaSession<ContinuousClock>, _ bob: AudioCapabilities,
        _ b: MediaSession<ContinuousClock>, origin: SDPOrigin
    ) async throws -> (alice: NegotiatedAudio, bob: NegotiatedAudio) {
        let offer = OfferAnswer.makeOffer(alice, origin: origin)
        let (answer, bobAudio) = try OfferAnswer.makeAnswer(
            to: try SessionDescription(parsing: offer.serialized()), capabilities: bob, origin: origin)
        let aliceAudio = try OfferAnswer.processAnswer(
            try SessionDescription(parsing: answer.serialized()), offer: offer, capabilities: alice)
        let bobResult = try #require(bobAudio)
        try await a.apply(aliceAudio)
        try await b.apply(bobResult)
        return (aliceAudio, bobResult)
    }

    /// The call layer's path: bind, offer with the bound port, answer, apply the result,
    /// start; then a re-INVITE puts A on hold (sendonly → B recvonly).
    @Test func offerAnswerDrivesTwoSessionsThenHold() async throws {
        let ids = SeededIdentifierSource(seed: 51)
        let a = try MediaSession(configuration: Self.configuration(), clock: ContinuousClock(), ids: ids)
        let b = try MediaSession(configuration: Self.configuration(), clock: ContinuousClock(), ids: ids)
        var alice = AudioCapabilities(address: "127.0.0.1", port: a.localAddress.port)
        alice.crypto = [SRTPKeyMaterial.random(.aesCM128HmacSHA1_80)]
        alice.codecs = [.pcmu, .pcma]
        var bob = AudioCapabilities(address: "127.0.0.1", port: b.localAddress.port)
        bob.crypto = [SRTPKeyMaterial.random(.aesCM128HmacSHA1_80)]
        let origin = SDPOrigin(sessionID: "7", sessionVersion: 1, address: "127.0.0.1")
        let (aliceAudio, _) = try await Self.negotiate(alice, a, bob, b, origin: origin)
        #expect(await a.configuration.law == .muLaw && aliceAudio.codec == .pcmu)
        let sink = RecordingSink()
        await b.start(remote: nil, sink: sink)
        await a.start(remote: nil, source: ToneGenerator(frequencies: [1000], amplitude: 10000))
        try await Self.wait(for: b) { $0.jitterBuffer.played >= 20 }
        // Hold: A re-offers sendonly; B answers recvonly and stops sending.
        var held = alice
        held.direction = .sendonly
        let reoffer = OfferAnswer.makeOffer(held, origin: origin)
        let (_, bobHeld) = try OfferAnswer.makeAnswer(to: reoffer, capabilities: bob, origin: origin)
        #expect(bobHeld?.direction == .recvonly)
        try await b.apply(try #require(bobHeld))
        let sentBefore = await b.statistics.packetsSent
        // Ten more of A's packets received (200 ms of A's media) while B, now recvonly, sent none:
        // a positive event after the time B would have sent in, not a delay.
        let receivedBefore = await b.statistics.packetsReceived
        try await Self.wait(for: b) { $0.packetsReceived >= receivedBefore + 10 }
        let sb = await b.statistics
        await a.stop()
        await b.stop()
        #expect(sb.srtpAuthenticationFailures == 0 && sb.packetsReceived >= 20)
        #expect(sb.packetsSent == sentBefore)
        Self.checkTone(Array(sink.samples.prefix(160 * 20)), frames: 20)
    }

    /// B holds A for longer than the jitter buffer spans (B sendonly, A recvonly: no RTP to B),
    /// then resumes. A's RTP timestamps advanced with the clock while it was silent (RFC 3550
    /// §5.1), so they come back far from where B's buffer stood: B must start a new timeline
    /// at once on resume, not drop the first packets as late or overflow until its
    /// out-of-range resync kicks in.
    @Test func heldSideStartsANewTimelineOnResume() async throws {
        let ids = SeededIdentifierSource(seed: 52)
        let a = try MediaSession(configuration: Self.configuration(), clock: ContinuousClock(), ids: ids)
        let b = try MediaSession(configuration: Self.configuration(), clock: ContinuousClock(), ids: ids)
        let alice = AudioCapabilities(address: "127.0.0.1", port: a.localAddress.port)
        let bob = AudioCapabilities(address: "127.0.0.1", port: b.localAddress.port)
        let origin = SDPOrigin(sessionID: "8", sessionVersion: 1, address: "127.0.0.1")
        let (aliceAudio, bobTalk) = try await Self.negotiate(alice, a, bob, b, origin: origin)
        let sink = RecordingSink()
        await b.start(remote: nil, sink: sink)
        await a.start(remote: nil, source: ToneGenerator(frequencies: [1000], amplitude: 10000))
        try await Self.wait(for: b) { $0.jitterBuffer.played >= 10 }
        var bobHolds = bobTalk
        bobHolds.direction = .sendonly
        var aliceHeld = aliceAudio
        aliceHeld.direction = .recvonly
        try await b.apply(bobHolds)
        try await a.apply(aliceHeld)
        // Longer than the buffer's span (capacity × ptime = 1 s): A's timestamps jump past it.
        try await Task.sleep(for: .milliseconds(1300))  // the point of the test: time passes while held
        let before = await b.statistics.jitterBuffer
        try await b.apply(bobTalk)
        try await a.apply(aliceAudio)
        try await Self.wait(for: b) { $0.jitterBuffer.played >= before.played + 15 }
        let after = await b.statistics.jitterBuffer
        await a.stop()
        await b.stop()
        #expect(after.played >= before.played + 15, "B did not play A's audio after the resume")
        #expect(after.late == before.late && after.overflow == before.overflow, "resumed packets dropped: \(after)")
        #expect(after.resyncs == before.resyncs + 1)
    }

    /// B holds (sendonly) but A goes on sending: B does not play those packets, yet they
    /// arrived — they are not loss (RFC 3550 A.3), so a clean call stays at 0 % after resume.
    @Test func packetsArrivingWhileHeldAreNotCountedAsLost() async throws {
        let ids = SeededIdentifierSource(seed: 54)
        let a = try MediaSession(configuration: Self.configuration(), clock: ContinuousClock(), ids: ids)
        let b = try MediaSession(configuration: Self.configuration(), clock: ContinuousClock(), ids: ids)
        let alice = AudioCapabilities(address: "127.0.0.1", port: a.localAddress.port)
        let bob = AudioCapabilities(address: "127.0.0.1", port: b.localAddress.port)
        let origin = SDPOrigin(sessionID: "10", sessionVersion: 1, address: "127.0.0.1")
        let (_, bobTalk) = try await Self.negotiate(alice, a, bob, b, origin: origin)
        await b.start(remote: nil)
        await a.start(remote: nil, source: ToneGenerator(frequencies: [1000], amplitude: 10000))
        try await Self.wait(for: b) { $0.jitterBuffer.played >= 10 }
        var bobHolds = bobTalk
        bobHolds.direction = .sendonly
        try await b.apply(bobHolds)
        try await Self.wait(for: b) { $0.packetsIgnoredOnHold >= 15 }
        let held = await b.statistics
        try await b.apply(bobTalk)
        try await Self.wait(for: b) { $0.jitterBuffer.played >= held.jitterBuffer.played + 10 }
        let after = await b.statistics
        await a.stop()
        await b.stop()
        #expect(held.jitterBuffer.played <= after.jitterBuffer.played - 10)
        #expect(after.cumulativeLost == 0, "held packets counted as lost: \(after.cumulativeLost)")
        #expect(after.packetsIgnoredOnHold >= 15)
    }

    @Test func dtmfSixteenKeysArriveAsRFC4733EventsInOrder() async throws {
        let keys = SRTPKeys(
            local: SRTPKeyMaterial.random(.aesCM128HmacSHA1_32),
            remote: SRTPKeyMaterial.random(.aesCM128HmacSHA1_32))
        let swapped = SRTPKeys(local: keys.remote, remote: keys.local)
        let a = try MediaSession(
            configuration: Self.configuration(srtp: keys), clock: ContinuousClock(),
            ids: SeededIdentifierSource(seed: 7))
        let b = try MediaSession(
            configuration: Self.configuration(srtp: swapped), clock: ContinuousClock(),
            ids: SeededIdentifierSource(seed: 8))
        let collected = Mutex<[DTMFReceiver.Event]>([])
        let listener = Task {  // every DTMF event until B stops (its event stream ends)
            for await event in b.events {
                if case .dtmf(let e) = event { collected.withLock { $0.append(e) } }
            }
        }
        await b.start(remote: a.localAddress)
        await a.start(remote: b.localAddress, source: ToneGenerator(frequencies: [440], amplitude: 3000))
        await a.sendDTMF(DTMFDigit.digits("0123456789*#ABCD")!)
        // 16 keys take ~3.5 s of paced media; the bound leaves room for a loaded 2-core machine.
        let all = await eventually(timeout: .seconds(15), every: .milliseconds(20)) {
            collected.withLock { $0.count } >= 32
        }
        #expect(all)
        // Nothing more may arrive: stop A, wait until B has taken in every DTMF packet A sent
        // (the last end retransmissions included), then stop B; every event is in by then.
        await a.stop()
        let sentByA = await a.statistics.dtmfPacketsSent
        #expect(await eventually { await b.statistics.dtmfPacketsReceived >= sentByA })
        await b.stop()
        await listener.value
        let events = collected.withLock { $0 }
        let began = events.compactMap { if case .began(let d) = $0 { d.character } else { nil } }
        let ended = events.compactMap { if case .ended(let d, _) = $0 { d.character } else { nil } }
        #expect(String(began) == "0123456789*#ABCD")
        #expect(String(ended) == "0123456789*#ABCD")
        try #require(events.count == 32)
        for i in 0..<16 {
            #expect(events[2 * i] == .began(DTMFDigit(rawValue: UInt8(i))!))
        }
    }

    @Test func inBandDTMFWithoutTelephoneEventIsDetectedByGoertzel() async throws {
        var ca = Self.configuration()
        ca.telephoneEventPayloadType = nil
        ca.dtmfToneDuration = .milliseconds(80)
        var cb = Self.configuration()
        cb.detectInBandDTMF = true
        let a = try MediaSession(configuration: ca, clock: ContinuousClock(), ids: SeededIdentifierSource(seed: 9))
        let b = try MediaSession(configuration: cb, clock: ContinuousClock(), ids: SeededIdentifierSource(seed: 10))
        let found = Mutex<[DTMFDigit]>([])
        let listener = Task {
            for await event in b.events { if case .inBandDTMF(let d) = event { found.withLock { $0.append(d) } } }
        }
        await b.start(remote: a.localAddress)
        await a.start(remote: b.localAddress)
        await a.sendDTMF(DTMFDigit.digits("159#")!)
        let deadline = ContinuousClock.now + .seconds(3)
        while found.withLock({ $0.count }) < 4 && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))  // poll interval of a bounded wait
        }
        await a.stop()
        await b.stop()
        listener.cancel()
        #expect(found.withLock { $0 } == DTMFDigit.digits("159#")!)
    }
}

/// Sending pace over 10 s in virtual time: the session's clock loop wakes 0–3 ms late every
/// frame (random), yet the send timestamps keep a 20 ms mean interval with no drift.
@Suite struct MediaSessionPacingTests {
    @Test func tenSecondsOfSendingKeepTwentyMillisecondsWithoutDrift() async throws {
        let clock = TestClock()
        var configuration = MediaSessionConfiguration()
        configuration.rtcpInterval = .seconds(3600)
        let session = try MediaSession(
            configuration: configuration, clock: clock, ids: SeededIdentifierSource(seed: 11))
        let receiver = try UDPSocket(bindHost: "127.0.0.1")
        await session.start(remote: receiver.localAddress, source: ToneGenerator(frequencies: [1000]))
        let jitter = SeededIdentifierSource(seed: 12)
        for frame in 0..<501 {
            #expect(await clock.waitForSleepers(2))
            let lateness = Duration.microseconds(Int(jitter.nextUInt64() % 3000))
            clock.advance(to: TestClock.Instant(offset: .milliseconds(20 * frame) + lateness))
        }
        #expect(await clock.waitForSleepers(2))
        let pacing = await session.statistics.pacing
        await session.stop()
        #expect(pacing.frames == 501)
        let mean = try #require(pacing.meanInterval)
        #expect(mean > .microseconds(19_900) && mean < .microseconds(20_100), "mean interval \(mean)")
        let drift = try #require(pacing.drift(nominal: .milliseconds(20)))
        #expect(drift < .milliseconds(1) && drift > .milliseconds(-1), "drift \(drift)")
        #expect(pacing.maxLateness < .milliseconds(3))
        let span = (pacing.lastSend ?? .zero) - (pacing.firstSend ?? .zero)
        #expect(span > .milliseconds(9_997) && span < .milliseconds(10_003))
    }
}

import SIPCore
import Synchronization
import Testing

@testable import Media

/// WebRTC media end to end over real UDP on 127.0.0.1: two sessions negotiate a
/// `UDP/TLS/RTP/SAVPF` offer/answer, run ICE and DTLS-SRTP on their one socket each, and a
/// 1 kHz tone goes both ways (checked with Goertzel).
@Suite(.serialized) struct DTLSSessionTests {
    static func configuration(
        role: ICEAgent.Role, profiles: [SRTPProfile] = [.aesCM128HmacSHA1_80, .aesCM128HmacSHA1_32]
    )
        -> MediaSessionConfiguration
    {
        var c = MediaSessionConfiguration()
        var w = WebRTCConfiguration()
        w.iceRole = role
        w.srtpProfiles = profiles
        c.webRTC = w
        c.rtcpInterval = .milliseconds(200)
        return c
    }

    /// Collects a session's WebRTC events in the background.
    final class EventLog: Sendable {
        let events = Mutex<[WebRTCEvent]>([])
        init(_ session: MediaSession<ContinuousClock>) {
            let stream = session.events
            Task {
                for await e in stream { if case .webRTC(let w) = e { self.events.withLock { $0.append(w) } } }
            }
        }
        func contains(_ match: (WebRTCEvent) -> Bool) -> Bool { events.withLock { $0.contains(where: match) } }
    }

    static func waitFor(_ timeout: Duration = .seconds(5), _ condition: () async -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if await condition() { return }
            try await Task.sleep(for: .milliseconds(5))  // poll interval of a bounded wait
        }
    }

    /// Frames (20 ms) of `samples` whose dominant frequency is 1 kHz at a real level.
    static func toneFrames(_ samples: [Int16]) -> Int {
        stride(from: 0, to: max(0, samples.count - 159), by: 160).filter { start in
            let frame = samples[start..<(start + 160)]
            return Goertzel.energy(frame) > 1e6
                && Goertzel.dominant(Array(frame), candidates: [300, 500, 800, 1000, 1200, 2000], sampleRate: 8000)
                    == 1000
        }.count
    }

    struct Call {
        let a: MediaSession<ContinuousClock>
        let b: MediaSession<ContinuousClock>
        let logA: EventLog
        let logB: EventLog
        let sinkA = RecordingSink()
        let sinkB = RecordingSink()
        var offer = ""
        var answer = ""
    }

    /// A offers (controlling, actpass), B answers (controlled, active = DTLS client). B gets
    /// the offer first, so its checks reach A before A has the answer (WEBRTC-NOTES).
    static func call(
        forgeAnswerFingerprint: Bool = false, profiles: [SRTPProfile] = [.aesCM128HmacSHA1_80],
        offerSetup: SetupRole = .actpass
    ) async throws -> Call {
        let a = try MediaSession(
            configuration: configuration(role: .controlling, profiles: profiles), clock: ContinuousClock(),
            ids: SeededIdentifierSource(seed: 11))
        let b = try MediaSession(
            configuration: configuration(role: .controlled, profiles: profiles), clock: ContinuousClock(),
            ids: SeededIdentifierSource(seed: 12))
        var call = Call(a: a, b: b, logA: EventLog(a), logB: EventLog(b))
        let tone = { ToneGenerator(frequencies: [1000], amplitude: 10000, duration: .seconds(4)) }
        await a.start(remote: nil, source: tone(), sink: call.sinkA)
        await b.start(remote: nil, source: tone(), sink: call.sinkB)

        let localA = try #require(await a.webRTCLocalParameters())
        var capsA = AudioCapabilities.webRTC(address: "127.0.0.1", port: a.localAddress.port, local: localA)
        capsA.setup = offerSetup
        let offer = OfferAnswer.makeWebRTCOffer(
            capsA, origin: SDPOrigin(sessionID: "1", sessionVersion: 1, address: "127.0.0.1"))
        call.offer = offer.serialized()

        let localB = try #require(await b.webRTCLocalParameters())
        let capsB = AudioCapabilities.webRTC(address: "127.0.0.1", port: b.localAddress.port, local: localB)
        let (answer, audioB) = try OfferAnswer.makeWebRTCAnswer(
            to: try SessionDescription(parsing: call.offer), capabilities: capsB,
            origin: SDPOrigin(sessionID: "2", sessionVersion: 1, address: "127.0.0.1"))
        call.answer = answer.serialized()
        try await b.apply(audioB)

        var audioA = try OfferAnswer.processAnswer(
            try SessionDescription(parsing: call.answer), offer: offer, capabilities: capsA)
        if forgeAnswerFingerprint { audioA.remoteFingerprint?.bytes[0] ^= 0xFF }
        // The answer "travels": B's checks (B has A's candidates) reach A first, and A answers
        // them before it has B's description (WEBRTC-NOTES). Wait until A has learnt B from one.
        try await Self.waitFor { await a.peerReflexiveRemoteCount > 0 }
        try await a.apply(audioA)
        return call
    }

    @Test func offerAnswerCarriesTheWebRTCProfile() async throws {
        let call = try await Self.call()
        await call.a.stop()
        await call.b.stop()
        for sdp in [call.offer, call.answer] {
            #expect(sdp.contains("m=audio ") && sdp.contains(" UDP/TLS/RTP/SAVPF "))
            for line in [
                "a=rtcp-mux", "a=mid:0", "a=group:BUNDLE 0", "a=ice-ufrag:", "a=ice-pwd:", "a=candidate:",
                "a=fingerprint:sha-256 ", "a=end-of-candidates",
            ] {
                #expect(sdp.contains(line), "\(line) missing")
            }
        }
        #expect(call.offer.contains("a=setup:actpass") && call.answer.contains("a=setup:active"))
        #expect(call.offer.contains("typ host") && call.offer.contains("127.0.0.1"))
    }

    @Test func iceAndDTLSCompleteAndToneFlowsBothWays() async throws {
        let started = ContinuousClock.now
        let call = try await Self.call()
        try await Self.waitFor {
            call.logA.contains { if case .dtlsConnected = $0 { true } else { false } }
                && call.logB.contains { if case .dtlsConnected = $0 { true } else { false } }
        }
        let secured = ContinuousClock.now - started
        try await Self.waitFor {
            Self.toneFrames(call.sinkA.samples) >= 25 && Self.toneFrames(call.sinkB.samples) >= 25
        }
        let sa = await call.a.statistics
        let sb = await call.b.statistics
        let iceA = await call.a.iceState
        await call.a.stop()
        await call.b.stop()
        #expect(iceA == .completed)
        #expect(call.logA.contains { $0 == .dtlsConnected(profile: .aesCM128HmacSHA1_80, role: .server) })
        #expect(call.logB.contains { $0 == .dtlsConnected(profile: .aesCM128HmacSHA1_80, role: .client) })
        #expect(call.logA.contains { if case .selectedPair(_, let r) = $0 { r == call.b.localAddress } else { false } })
        #expect(Self.toneFrames(call.sinkA.samples) >= 25, "A heard \(Self.toneFrames(call.sinkA.samples)) tone frames")
        #expect(Self.toneFrames(call.sinkB.samples) >= 25, "B heard \(Self.toneFrames(call.sinkB.samples)) tone frames")
        #expect(sa.srtpAuthenticationFailures == 0 && sb.srtpAuthenticationFailures == 0)
        #expect(sa.packetsReceived > 0 && sb.packetsReceived > 0)
        #expect(secured < .seconds(2), "ICE + DTLS took \(secured)")
    }

    /// A forged fingerprint in the answer: A (the DTLS server here) refuses the client's
    /// certificate, reports why, and no media is sent or played.
    @Test func forgedFingerprintFailsTheCallWithTheReason() async throws {
        let call = try await Self.call(forgeAnswerFingerprint: true)
        try await Self.waitFor { call.logA.contains { if case .dtlsFailed = $0 { true } else { false } } }
        // Failed means never keyed: no SRTP context and no destination, so nothing can be sent
        // or played from now on (a state, checked at once, instead of 100 ms of "nothing").
        #expect(await call.a.canCarryMedia == false)
        let sa = await call.a.statistics
        await call.a.stop()
        await call.b.stop()
        let failure = call.logA.events.withLock {
            $0.compactMap { if case .dtlsFailed(let e) = $0 { e } else { nil } }.first
        }
        let error = try #require(failure)
        #expect(error.code == .fingerprintMismatch)
        #expect(error.description.contains("a=fingerprint says"))
        #expect(sa.packetsSent == 0 && Self.toneFrames(call.sinkA.samples) == 0)
    }

    @Test func gcmProfileWhenBothAllowIt() async throws {
        let call = try await Self.call(profiles: [.aeadAES128GCM, .aesCM128HmacSHA1_80])
        try await Self.waitFor { Self.toneFrames(call.sinkB.samples) >= 10 }
        await call.a.stop()
        await call.b.stop()
        #expect(call.logB.contains { $0 == .dtlsConnected(profile: .aeadAES128GCM, role: .client) })
        #expect(Self.toneFrames(call.sinkB.samples) >= 10)
    }

    /// RFC 5763 §5 role combinations end to end: the offer's `a=setup` decides, the answer
    /// mirrors it (actpass → active, active → passive, passive → active).
    @Test(arguments: [
        (SetupRole.actpass, DTLSRole.server, DTLSRole.client),
        (.active, .client, .server),
        (.passive, .server, .client),
    ])
    func setupRoleCombinations(offer: SetupRole, offererRole: DTLSRole, answererRole: DTLSRole) async throws {
        let call = try await Self.call(offerSetup: offer)
        try await Self.waitFor { Self.toneFrames(call.sinkA.samples) >= 5 && Self.toneFrames(call.sinkB.samples) >= 5 }
        await call.a.stop()
        await call.b.stop()
        #expect(call.offer.contains("a=setup:\(offer.rawValue)"))
        #expect(call.answer.contains("a=setup:\(offer.answer.rawValue)"))
        #expect(call.logA.contains { $0 == .dtlsConnected(profile: .aesCM128HmacSHA1_80, role: offererRole) })
        #expect(call.logB.contains { $0 == .dtlsConnected(profile: .aesCM128HmacSHA1_80, role: answererRole) })
        #expect(Self.toneFrames(call.sinkA.samples) >= 5 && Self.toneFrames(call.sinkB.samples) >= 5)
    }
}

import AstraTestSupport
import Media
import SIPCore
import SIPDialog
import SIPTransport
import Testing

@testable import CallSession

/// Two ``Call``s back to back: signalling over a ``LoopbackChannel`` pair (no sockets, optional
/// loss), media over real UDP on 127.0.0.1 — tone each way, DTMF, hold/resume, hang-up.
@Suite(.serialized) struct CallLoopbackTests {
    /// The two user agents and their calls.
    final class Pair: Sendable {
        let caller: Call<ContinuousClock>
        let callee: Call<ContinuousClock>
        let callerSink = RecordingSink()
        let calleeSink = RecordingSink()
        let callerEvents: Task<[CallEvent], Never>
        let calleeEvents: Task<[CallEvent], Never>
        let pumps: [Task<Void, Never>]
        /// The INVITE as the callee got it, and how long after the caller's start() it came.
        let invite: IncomingRequest
        let inviteDelay: Duration

        /// `callerMedia` is the caller's media mode; the callee stays on `.auto` (follows the offer).
        /// `configure` adjusts the caller's options (e.g. a STUN server).
        init(
            faults: LoopbackFaults = .none, srtp: Bool = false, callerMedia: CallMediaMode = .auto,
            configure: (inout CallOptions) -> Void = { _ in }
        ) async throws {
            let clock = ContinuousClock()
            let (a, b) = LoopbackChannel.pair(transport: .udp, clock: clock, faults: faults, seed: 5)
            let alice = SIPEndpoint(channel: a, clock: clock, ids: SeededIdentifierSource(seed: 1))
            let bob = SIPEndpoint(channel: b, clock: clock, ids: SeededIdentifierSource(seed: 2))
            let aliceEvents = alice.events, bobEvents = bob.events
            await alice.start()
            await bob.start()
            let aliceBinding = LocalBinding(transport: .udp, host: "127.0.0.1", port: 5070)
            let bobBinding = LocalBinding(transport: .udp, host: "127.0.0.1", port: 5060)
            var options = CallOptions()
            options.srtp = srtp
            var callerOptions = options
            callerOptions.mediaMode = callerMedia
            configure(&callerOptions)
            caller = try Call(
                calling: try SIPURI(parsing: "sip:bob@127.0.0.1:5060"),
                from: SIPNameAddress(uri: try SIPURI(parsing: "sip:alice@127.0.0.1")), endpoint: alice,
                binding: aliceBinding, credentials: nil, options: callerOptions,
                source: ToneGenerator(frequencies: [440]),
                sink: callerSink, clock: clock, ids: SeededIdentifierSource(seed: 3))
            // Bob's first INVITE makes his call; then everything goes to it.
            var iterator = bobEvents.makeAsyncIterator()
            let callerRef = caller
            let callerPump = Task {
                for await event in aliceEvents { await callerRef.handle(event) }
            }
            let started = clock.now
            await caller.start()
            var invite: IncomingRequest?
            while let event = await iterator.next() {
                if case .request(let incoming) = event, incoming.request.method == .invite {
                    invite = incoming
                    break
                }
            }
            self.invite = try #require(invite)
            inviteDelay = started.duration(to: clock.now)
            callee = try Call(
                incoming: self.invite, endpoint: bob, binding: bobBinding, options: options,
                source: ToneGenerator(frequencies: [1000]), sink: calleeSink, clock: clock,
                ids: SeededIdentifierSource(seed: 4))
            let calleeRef = callee
            let calleePump = Task {
                while let event = await iterator.next() { await calleeRef.handle(event) }
            }
            pumps = [callerPump, calleePump]
            callerEvents = Task { await Self.collect(callerRef.events) }
            calleeEvents = Task { await Self.collect(calleeRef.events) }
            await callee.start()
        }

        static func collect(_ events: AsyncStream<CallEvent>) async -> [CallEvent] {
            var all: [CallEvent] = []
            for await event in events { all.append(event) }
            return all
        }

        func close() { for pump in pumps { pump.cancel() } }
    }

    static func heard(_ samples: [Int16], _ frequency: Double) -> Bool {
        guard samples.count >= 1600 else { return false }
        let block = samples[(samples.count - 1600)...]
        return Goertzel.power(block, frequency: frequency, sampleRate: 8000) / Goertzel.energy(block) > 0.3
    }

    /// Waits until `sink` has played `milliseconds` more of audio (8 kHz) than it had on entry:
    /// paced real-time media, awaited as a positive condition rather than a fixed sleep.
    static func played(_ sink: RecordingSink, milliseconds: Int) async -> Bool {
        let target = sink.samples.count + 8 * milliseconds
        return await eventually { sink.samples.count >= target }
    }

    @Test(arguments: [false, true]) func toneBothWaysDTMFHoldResumeAndHangUp(srtp: Bool) async throws {
        let pair = try await Pair(srtp: srtp)
        defer { pair.close() }
        await pair.callee.ring()
        await pair.callee.answer()
        #expect(await eventually { await pair.caller.state == .active })
        #expect(await eventually { Self.heard(pair.callerSink.samples, 1000) }, "caller hears the callee's tone")
        #expect(await eventually { Self.heard(pair.calleeSink.samples, 440) }, "callee hears the caller's tone")
        await pair.caller.sendDTMF(DTMFDigit.digits("42")!)
        try await Task.sleep(for: .milliseconds(500))  // pacing: the digits' RFC 4733 events play out before the hold
        await pair.caller.hold()
        #expect(await eventually { await pair.caller.state == .held })  // the re-INVITE's 200 came back
        #expect(await pair.callee.state == .held)
        await pair.caller.resume()
        #expect(await eventually { await pair.caller.state == .active })
        // Same check as the WebRTC hold → resume: plain RTP behaves alike (not WebRTC-specific).
        #expect(await Self.played(pair.calleeSink, milliseconds: 400), "callee playout goes on after resume")
        let clean = Self.heard(pair.calleeSink.samples, 440)
        #expect(clean, "callee hears the caller's tone, clean, after resume")
        await pair.callee.hangUp()
        let callerEvents = await pair.callerEvents.value
        let calleeEvents = await pair.calleeEvents.value
        #expect(callerEvents.contains(.ringing))
        #expect(
            callerEvents.contains(
                .answered(codec: "PCMA", srtp: srtp, telephoneEvent: true, media: srtp ? .sdes : .rtp)))
        #expect(callerEvents.contains(.held(byPeer: false, direction: .sendonly)))
        #expect(callerEvents.contains(.resumed(byPeer: false)))
        #expect(calleeEvents.contains(.held(byPeer: true, direction: .recvonly)))
        #expect(calleeEvents.contains(.resumed(byPeer: true)))
        let digits = calleeEvents.compactMap { if case .dtmf(let d, _) = $0 { d } else { nil } }
        #expect(digits == DTMFDigit.digits("42"))
        guard case .ended(let reason, let stats) = callerEvents.last else {
            Issue.record("no ended event: \(callerEvents)")
            return
        }
        #expect(reason == .remoteHangUp)
        #expect(stats.packetsReceived > 30 && stats.mos! > 4)
        #expect(stats.packetsLost == 0, "a clean loopback call held and resumed: \(stats)")
        guard case .ended(.localHangUp, _) = calleeEvents.last else {
            Issue.record("callee: \(calleeEvents)")
            return
        }
    }

    @Test func callerCancelsWhileRinging() async throws {
        let pair = try await Pair()
        defer { pair.close() }
        await pair.callee.ring()
        #expect(await eventually { await pair.caller.state == .ringing })  // the 180 arrived: CANCEL is allowed
        await pair.caller.hangUp()
        let callerEvents = await pair.callerEvents.value
        let calleeEvents = await pair.calleeEvents.value
        #expect(callerEvents.last.map { if case .ended(.cancelled, _) = $0 { true } else { false } } == true)
        #expect(calleeEvents.last.map { if case .ended(.cancelled, _) = $0 { true } else { false } } == true)
    }

    @Test func busyRejection() async throws {
        let pair = try await Pair()
        defer { pair.close() }
        await pair.callee.reject(status: 486)
        let callerEvents = await pair.callerEvents.value
        #expect(callerEvents.last.map { if case .ended(.busy(486), _) = $0 { true } else { false } } == true)
    }

    /// `settle(within:)` after a hang-up waits for the BYE's 200 (RFC 3261 §15.1.1), so a tool
    /// may close its flow then: with 150 ms each way it is not settled 100 ms after the BYE, and
    /// is once the answer is back; the callee reports the remote hang-up.
    @Test func hangUpSettlesWhenTheByeIsAnswered() async throws {
        let pair = try await Pair(faults: LoopbackFaults(delay: .milliseconds(150)))
        defer { pair.close() }
        await pair.callee.answer()
        #expect(await eventually(timeout: .seconds(5)) { await pair.caller.state == .active })
        await pair.caller.hangUp()
        #expect(await pair.caller.settle(within: .milliseconds(100)) == false, "settled before the 200 to BYE")
        #expect(await pair.caller.settle(within: .seconds(5)), "the BYE was never answered")
        let calleeEvents = await pair.calleeEvents.value
        #expect(calleeEvents.last.map { if case .ended(.remoteHangUp, _) = $0 { true } else { false } } == true)
        #expect(await pair.callee.settle(within: .seconds(1)), "callee's 200 to the BYE not handed over")
    }

    /// A callee `Call` that its owner lets go of right after `reject(status: 603)` (a phone's
    /// glue dropping the call on its end) still sends the 603: the outbox drains what was
    /// queued; the caller ends `declined(603)`.
    @Test func rejectedCallReleasedAtOnceStillSendsItsFinalResponse() async throws {
        let clock = ContinuousClock()
        let (a, b) = LoopbackChannel.pair(transport: .udp, clock: clock, faults: .none, seed: 6)
        let alice = SIPEndpoint(channel: a, clock: clock, ids: SeededIdentifierSource(seed: 1))
        let bob = SIPEndpoint(channel: b, clock: clock, ids: SeededIdentifierSource(seed: 2))
        let aliceEvents = alice.events, bobEvents = bob.events
        await alice.start()
        await bob.start()
        let caller = try Call(
            calling: try SIPURI(parsing: "sip:bob@127.0.0.1:5060"),
            from: SIPNameAddress(uri: try SIPURI(parsing: "sip:alice@127.0.0.1")), endpoint: alice,
            binding: LocalBinding(transport: .udp, host: "127.0.0.1", port: 5070), credentials: nil, clock: clock,
            ids: SeededIdentifierSource(seed: 3))
        let pump = Task { for await event in aliceEvents { await caller.handle(event) } }
        defer { pump.cancel() }
        let callerEvents = Task { await Pair.collect(caller.events) }
        await caller.start()
        var invite: IncomingRequest?
        for await event in bobEvents {
            if case .request(let incoming) = event, incoming.request.method == .invite {
                invite = incoming
                break
            }
        }
        weak var released: Call<ContinuousClock>?
        do {
            let callee = try Call(
                incoming: try #require(invite), endpoint: bob,
                binding: LocalBinding(transport: .udp, host: "127.0.0.1", port: 5060), clock: clock,
                ids: SeededIdentifierSource(seed: 4))
            released = callee
            await callee.start()
            await callee.reject(status: 603)
        }
        let events = await callerEvents.value
        #expect(events.last.map { if case .ended(.declined(603), _) = $0 { true } else { false } } == true, "\(events)")
        #expect(await eventually { released == nil }, "the callee Call is still alive: the test proves nothing")
    }

    /// 20 % of SIP messages lost both ways: retransmissions still bring the call up and down.
    @Test func lossySignallingStillConnects() async throws {
        let pair = try await Pair(faults: LoopbackFaults(loss: 0.2))
        defer { pair.close() }
        await pair.callee.answer()
        #expect(await eventually(timeout: .seconds(10)) { await pair.caller.state == .active })
        await pair.caller.hangUp()
        let callerEvents = await pair.callerEvents.value
        #expect(callerEvents.contains { if case .answered = $0 { true } else { false } })
        guard case .ended(let reason, _) = callerEvents.last else { return #expect(Bool(false)) }
        #expect(reason == .localHangUp || reason == .timeout, "\(reason)")
    }

    /// WebRTC media (`UDP/TLS/RTP/SAVPF`): the caller offers it, the callee (auto) answers in
    /// kind; ICE and DTLS complete on both sides with the RFC 5763 roles (offerer = DTLS server),
    /// tones go both ways, hold/resume re-offers keep the association, the hang-up ends both.
    @Test func webRTCMediaBothWaysWithHoldAndResume() async throws {
        let pair = try await Pair(callerMedia: .webRTC)
        defer { pair.close() }
        await pair.callee.ring()
        await pair.callee.answer()
        #expect(await eventually { await pair.caller.state == .active })
        #expect(await eventually { Self.heard(pair.callerSink.samples, 1000) }, "caller hears the callee's tone")
        #expect(await eventually { Self.heard(pair.calleeSink.samples, 440) }, "callee hears the caller's tone")
        await pair.caller.hold()
        #expect(await eventually { await pair.caller.state == .held })  // the re-INVITE's 200 came back
        #expect(await eventually { await pair.callee.state == .held })
        // Resume at once. This once needed a 200 ms pause: the check below then fell on the
        // jitter buffer's shrink ~1 s into playout, which cut two frames of the tone
        // (JitterBufferTests.continuousToneIsNeverCutToShrink), nothing in hold or WebRTC.
        await pair.caller.resume()
        #expect(await eventually { await pair.caller.state == .active })
        #expect(await Self.played(pair.calleeSink, milliseconds: 400), "callee playout goes on after resume")
        let clean = Self.heard(pair.calleeSink.samples, 440)
        #expect(clean, "callee hears the caller's tone, clean, after resume")
        await pair.caller.hangUp()
        let callerEvents = await pair.callerEvents.value
        let calleeEvents = await pair.calleeEvents.value
        for (events, role) in [(callerEvents, "server"), (calleeEvents, "client")] {
            #expect(events.contains(.answered(codec: "PCMA", srtp: true, telephoneEvent: true, media: .webRTC)))
            #expect(events.contains { if case .iceConnected = $0 { true } else { false } }, "\(events)")
            #expect(
                events.contains { if case .dtlsConnected(_, let r, _) = $0 { r == role } else { false } }, "\(events)")
            #expect(events.filter { if case .dtlsConnected = $0 { true } else { false } }.count == 1)
        }
        guard case .ended(.localHangUp, let stats) = callerEvents.last else {
            Issue.record("caller: \(callerEvents)")
            return
        }
        #expect(stats.packetsReceived > 30)
        guard case .ended(.remoteHangUp, _) = calleeEvents.last else {
            Issue.record("callee: \(calleeEvents)")
            return
        }
    }
}

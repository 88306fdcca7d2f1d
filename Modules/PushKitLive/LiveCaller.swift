import CallSession
import Media
import PushKitEmu
import SIPCore
import SIPDialog

/// The calling side of a live scenario: one registered SIP line (UDP to Kamailio) that places
/// the scenario's calls with a 440 Hz tone, records what it hears, and reports each call's fate
/// on the shared timeline with the measured latencies.
public actor LiveCaller {
    /// What happened to one call, from the caller's side.
    public struct Placed: Sendable {
        public var index: Int32
        public var startedAt: Int64
        public var ringingAt: Int64 = -1
        public var answeredAt: Int64 = -1
        public var endedAt: Int64 = -1
        public var endReason: CallEndReason?
        public var hungUpByCaller = false
        /// The `Reason` header of the final failure (the gateway's `SIP;cause=480;text="wake no_ack"`).
        public var reasonHeader: String?
        /// The failover reason the gateway named in its `Reason` header, when it did.
        public var gatewayFailoverReason: FailoverReason? { reasonHeader.flatMap(ResponseTap.failoverReason) }
        public let recording: RecordingSink

        /// The call's outcome in the emulator's terms.
        public var outcome: CallOutcome {
            if answeredAt >= 0 { return .connected }
            guard let endReason else { return .pending }
            if hungUpByCaller || endReason == .cancelled { return .cancelled }
            return .failedOver
        }
    }

    let stack: LiveSIPStack
    let timeline: LiveTimeline
    let directory: CallDirectory
    let toneHz: Double
    var calls: [Int32: Call<ContinuousClock>] = [:]
    var callIDs: [Int32: String] = [:]
    let tap = ResponseTap()
    /// Every call placed, by index.
    public private(set) var placed: [Int32: Placed] = [:]
    var tasks: [Task<Void, Never>] = []
    var onEnded: [@Sendable (Int32, Placed) async -> Void] = []
    let answerTappedAt: @Sendable (Int32) async -> Int64

    public init(
        line: Line, timeline: LiveTimeline, directory: CallDirectory, toneHz: Double = 440, sipTrace: Bool = false,
        answerTappedAt: @escaping @Sendable (Int32) async -> Int64 = { _ in -1 }
    ) throws(LiveError) {
        self.answerTappedAt = answerTappedAt
        stack = try LiveSIPStack(line: line, userAgent: "astra-pushsim-caller", sipTrace: sipTrace, tap: tap)
        self.timeline = timeline
        self.directory = directory
        self.toneHz = toneHz
    }

    /// Registers the caller's line (bounded).
    public func start(timeoutMs: Int64 = 5_000) async throws(LiveError) {
        let events = stack.registration.events
        let traffic = stack.callTraffic
        tasks.append(Task { [weak self] in for await event in traffic { await self?.route(event) } })
        await stack.start()
        let deadline = timeline.now + timeoutMs
        var iterator = events.makeAsyncIterator()
        while timeline.now < deadline {
            guard let event = await iterator.next() else { break }
            switch event {
            case .registration(.registered): return
            case .registration(.failed(let failure)):
                throw LiveError(.infrastructure, "caller line did not register: \(failure)")
            default: continue
            }
        }
        throw LiveError(.infrastructure, "caller line did not register within \(timeoutMs) ms")
    }

    func route(_ event: EndpointEvent) async {
        switch event {
        case .request(let incoming):
            if let id = incoming.request.headers.callID, let c = directory.known(id), let call = calls[c] {
                await call.handle(event)
            } else {
                await stack.endpoint.respond(
                    to: incoming, with: SIPResponse(to: incoming.request, statusCode: 486, toTag: "busy"))
            }
        case .ack(let request):
            if let id = request.headers.callID, let c = directory.known(id) { await calls[c]?.handle(event) }
        case .strayResponse(let response):
            if let id = response.headers.callID, let c = directory.known(id) { await calls[c]?.handle(event) }
        case .cancelled(let incoming):
            if let id = incoming.request.headers.callID, let c = directory.known(id) { await calls[c]?.handle(event) }
        default:
            break
        }
    }

    /// Dials `target`; the caller hangs up `talkMs` after the answer. Returns the call index.
    @discardableResult
    public func dial(_ target: SIPURI, talkMs: Int64) async throws(LiveError) -> Int32 {
        guard let binding = await stack.binding else { throw LiveError(.infrastructure, "caller has no flow") }
        var options = CallOptions()
        options.mediaHost = "127.0.0.1"
        options.rtpTimeout = nil
        options.invite.noAnswerTimeout = .seconds(60)
        options.invite.userAgent = "astra-pushsim-caller"
        let recording = RecordingSink()
        let call: Call<ContinuousClock>
        do {
            call = try Call(
                calling: target, from: SIPNameAddress(displayName: nil, uri: stack.setup.aor), endpoint: stack.endpoint,
                binding: binding, credentials: stack.setup.credentials, options: options,
                source: ToneGenerator(frequencies: [toneHz]), sink: recording, clock: ContinuousClock(), ids: stack.ids)
        } catch {
            throw LiveError(.infrastructure, "caller: \(error)")
        }
        let c = directory.index(of: call.callID)
        calls[c] = call
        callIDs[c] = call.callID
        let t = timeline.record(.callStart(call: c))
        placed[c] = Placed(index: c, startedAt: t, recording: recording)
        tasks.append(
            Task { [weak self] in
                for await event in call.events { await self?.callEvent(c, event, talkMs: talkMs) }
            })
        await call.start()
        return c
    }

    func callEvent(_ c: Int32, _ event: CallEvent, talkMs: Int64) async {
        guard var p = placed[c] else { return }
        let now = timeline.now
        switch event {
        case .ringing where p.ringingAt < 0:
            p.ringingAt = now
            timeline.record(
                .live("caller_ringing", [("call", .int(c)), ("push_to_ring_ms", .int(now - p.startedAt))]), at: now)
        case .answered where p.answeredAt < 0:
            p.answeredAt = now
            let tapped = await answerTappedAt(c)
            timeline.record(.emu(.callConnected(call: c, answerDelayMs: tapped >= 0 ? now - tapped : -1)), at: now)
            let call = calls[c]
            tasks.append(
                Task {
                    do { try await Task.sleep(for: .milliseconds(talkMs)) } catch { return }
                    await call?.hangUp()
                })
        case .ended(let reason, _):
            p.endedAt = now
            p.endReason = reason
            p.reasonHeader = callIDs[c].flatMap(tap.reason(callID:))
            if let status = reason.status, status >= 300, status != 487 {
                var fields: [(String, JSONField)] = [("call", .int(c)), ("status", .int(Int64(status)))]
                if let header = p.reasonHeader { fields.append(("sip_reason", .text(header))) }
                timeline.record(.live("caller_final", fields), at: now)
            }
            calls[c] = nil
        default:
            break
        }
        placed[c] = p
        if case .ended = event { for callback in onEnded { await callback(c, p) } }
    }

    /// Registers a callback for every ended call.
    public func whenEnded(_ callback: @escaping @Sendable (Int32, Placed) async -> Void) { onEnded.append(callback) }

    /// The caller hangs up call `c` (CANCEL before the answer, BYE after).
    public func hangUp(_ c: Int32) async {
        guard let call = calls[c] else { return }
        placed[c]?.hungUpByCaller = true
        timeline.record(.callerLeft(call: c))
        await call.hangUp()
    }

    /// Whether every placed call has ended.
    public var allEnded: Bool { placed.values.allSatisfy { $0.endReason != nil } }

    /// Stops the line (unregister, bounded).
    public func shutdown() async {
        for call in calls.values { await call.hangUp() }
        try? await Task.sleep(for: .milliseconds(100))
        await stack.shutdown(within: .milliseconds(500))
        for task in tasks { task.cancel() }
    }
}

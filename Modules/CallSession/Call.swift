import Media
import SIPCore
import SIPDialog

/// One call: an `InviteUsage` (RFC 3261 §13–§15 signalling) plus a `MediaSession` (RTP/SRTP),
/// driven over a `SIPEndpoint` and summarised by a ``CallMachine``. The actor only does IO:
/// it executes the usage's actions (transactions, responses, ACKs, timers, in order through one
/// outbox), feeds back what the endpoint reports (``handle(_:)``), runs SDP offer/answer through
/// `OfferAnswer` (RFC 3264) and reports ``CallEvent``s. Files: this one (life cycle and
/// commands), `Call+Actions.swift` (executing actions, the outbox, settling), `Call+Media.swift`
/// (SDP, media, DTMF, hold), `Call+ICE.swift` and `Call+WebRTC.swift`.
public actor Call<C: Clock> where C.Duration == Duration {
    public nonisolated let events: AsyncStream<CallEvent>
    /// The dialog's Call-ID: route endpoint events with it (``owns(_:)``).
    public nonisolated let callID: String
    let sink: AsyncStream<CallEvent>.Continuation
    let endpoint: SIPEndpoint
    let clock: C
    let ids: any IdentifierSource
    let options: CallOptions
    var usage: InviteUsage
    var machine: CallMachine
    let media: MediaSession<C>
    /// Our media capabilities (address, port, codecs, keys, direction).
    var capabilities: AudioCapabilities
    /// Our offer waiting for its answer (initial or re-offer), RFC 3264 §5.
    var currentOffer: SessionDescription?
    let sessionID: String
    var sessionVersion: UInt64 = 0
    var negotiated: NegotiatedAudio?
    var mediaRunning = false
    var source: any AudioSource
    var audioSink: any AudioSink
    var incoming: [TransactionKey: IncomingRequest] = [:]
    var timers: [InviteUsage.Timer: Task<Void, Never>] = [:]
    var background: [Task<Void, Never>] = []
    /// When the INVITE went out (caller) or was taken (callee): the origin of the set-up figures.
    var createdAt: C.Instant
    var answeredAt: C.Instant?
    var firstRTPAt: C.Instant?
    var lastRTPProgress: (count: Int, at: C.Instant)?
    var reportedAnswer = false
    var reportedFirstRTP = false
    /// WebRTC progress (ICE pair selected, DTLS done) and its deadline after the answer.
    var iceConnectedAt: C.Instant?
    var dtlsConnectedAt: C.Instant?
    var webRTCDeadlineArmed = false
    /// The DTLS role of the association (from `dtls_connected`), pinned in re-offers.
    var dtlsRole: DTLSRole?
    /// An ICE restart in progress: when, and whether the peer started it.
    var iceRestart: (at: C.Instant, byPeer: Bool)?
    var reportedGathering = false
    let outbox: AsyncStream<Outgoing>.Continuation
    let outgoing: AsyncStream<Outgoing>
    /// Messages yielded to the outbox that the endpoint has not taken yet (``settle(within:)``).
    var unsent = 0
    /// Who waits in ``settle(within:)``.
    var settleWaiters: [CheckedContinuation<Void, Never>] = []

    /// What goes to the endpoint, strictly in the order the usage asked for it.
    enum Outgoing: Sendable {
        case transaction(SIPRequest)
        case response(IncomingRequest, SIPResponse)
        case ack(SIPRequest)
    }

    /// An outgoing call to `target` from our address of record `local` (the INVITE goes out
    /// with ``start()``), with the SDP offer built from a freshly bound media socket.
    public init(
        calling target: SIPURI, from local: SIPNameAddress, endpoint: SIPEndpoint, binding: LocalBinding,
        credentials: DigestCredentials?, options: CallOptions = CallOptions(),
        source: any AudioSource = SilenceSource(), sink: any AudioSink = NullSink(),
        clock: C, ids: any IdentifierSource = SystemIdentifierSource()
    ) throws(CallError) {
        let media = try Self.makeMedia(
            options, webRTCRole: options.mediaMode == .webRTC ? .controlling : nil, clock: clock, ids: ids)
        var caps: AudioCapabilities
        if let local = media.initialWebRTCParameters {
            caps = .webRTC(address: options.mediaHost, port: media.localAddress.port, local: local)
        } else {
            caps = AudioCapabilities(
                address: options.mediaHost, port: options.advertisedMediaPort ?? media.localAddress.port)
            if options.srtp {
                caps.crypto = [.random(.aesCM128HmacSHA1_80), .random(.aesCM128HmacSHA1_32)]
                caps.requireSRTP = true
            }
        }
        let sessionID = String(ids.nextUInt32() & 0x7FFF_FFFF)
        let offer = Self.makeOffer(
            caps, origin: SDPOrigin(sessionID: sessionID, sessionVersion: 0, address: options.mediaHost))
        let usage = InviteUsage(
            calling: target, from: local, offer: SessionBody(text: offer.serialized()), binding: binding,
            credentials: credentials, settings: options.invite, ids: ids)
        self.init(
            usage: usage, machine: CallMachine(role: .caller), media: media, caps: caps,
            sessionID: sessionID, endpoint: endpoint, options: options, source: source, sink: sink,
            clock: clock, ids: ids, offer: offer)
    }

    /// An incoming call for `invite` (RFC 3261 §13.3.1). Call ``start()``, then ``ring()``,
    /// ``answer()`` or ``reject(status:)``.
    public init(
        incoming invite: IncomingRequest, endpoint: SIPEndpoint, binding: LocalBinding,
        credentials: DigestCredentials? = nil, options: CallOptions = CallOptions(),
        source: any AudioSource = SilenceSource(), sink: any AudioSink = NullSink(),
        clock: C, ids: any IdentifierSource = SystemIdentifierSource()
    ) throws(CallError) {
        let usage: InviteUsage
        do {
            usage = try InviteUsage(
                incoming: invite.request, binding: binding, credentials: credentials,
                settings: options.invite, ids: ids)
        } catch {
            throw CallError(.badRequest, "unusable INVITE: \(error)")
        }
        // WebRTC when asked for, or (auto) when the offer is UDP/TLS/RTP/SAVPF; the answerer is
        // ICE-controlled, unless the INVITE had no offer and ours goes in the 2xx (RFC 8445 §6.1.1).
        let offer = usage.remoteInitialOffer
        let webRTC = options.mediaMode == .webRTC || options.mediaMode == .auto && Self.offersWebRTC(offer)
        let media = try Self.makeMedia(
            options, webRTCRole: webRTC ? (offer == nil ? .controlling : .controlled) : nil, clock: clock, ids: ids)
        var caps: AudioCapabilities
        if let local = media.initialWebRTCParameters {
            caps = .webRTC(address: options.mediaHost, port: media.localAddress.port, local: local)
        } else {
            caps = AudioCapabilities(
                address: options.mediaHost, port: options.advertisedMediaPort ?? media.localAddress.port)
            // As answerer we take SDES-SRTP whenever it is offered (RFC 4568 §7.1.2); --srtp requires it.
            caps.crypto = [.random(.aesCM128HmacSHA1_80), .random(.aesCM128HmacSHA1_32)]
            caps.requireSRTP = options.srtp
        }
        self.init(
            usage: usage, machine: CallMachine(role: .callee), media: media, caps: caps,
            sessionID: String(ids.nextUInt32() & 0x7FFF_FFFF), endpoint: endpoint, options: options,
            source: source, sink: sink, clock: clock, ids: ids, invite: invite)
    }

    init(
        usage: InviteUsage, machine: CallMachine, media: MediaSession<C>, caps: AudioCapabilities,
        sessionID: String, endpoint: SIPEndpoint, options: CallOptions, source: any AudioSource,
        sink: any AudioSink, clock: C, ids: any IdentifierSource,
        offer: SessionDescription? = nil, invite: IncomingRequest? = nil
    ) {
        self.currentOffer = offer
        if let invite { self.incoming = [invite.key: invite] }
        self.usage = usage
        self.callID = usage.callID
        self.machine = machine
        self.media = media
        self.capabilities = caps
        self.sessionID = sessionID
        self.endpoint = endpoint
        self.options = options
        self.source = source
        self.audioSink = sink
        self.clock = clock
        self.ids = ids
        self.createdAt = clock.now
        (events, self.sink) = AsyncStream.makeStream(of: CallEvent.self)
        let (stream, outbox) = AsyncStream.makeStream(of: Outgoing.self)
        self.outbox = outbox
        self.outgoing = stream
    }

    deinit {
        for task in background { task.cancel() }
        for task in timers.values { task.cancel() }
        outbox.finish()
        sink.finish()
    }

    /// The media session; in WebRTC mode (a `webRTCRole`) with ICE + DTLS-SRTP on one socket.
    static func makeMedia(_ options: CallOptions, webRTCRole: ICEAgent.Role?, clock: C, ids: any IdentifierSource)
        throws(CallError) -> MediaSession<C>
    {
        var configuration = options.media
        configuration.localHost = options.mediaHost
        configuration.detectInBandDTMF = options.detectInBandDTMF
        if let webRTCRole {
            var webRTC = options.webRTC
            webRTC.iceRole = webRTCRole
            configuration.webRTC = webRTC
            configuration.rtcpMux = true
        }
        do {
            return try MediaSession(configuration: configuration, clock: clock, ids: ids, tap: options.mediaTap)
        } catch {
            throw CallError(.media, "media: \(error)")
        }
    }

    /// The one task that hands outgoing messages to the endpoint, in order. It holds the stream
    /// and the endpoint, not the call: what was queued goes out even when the owner lets go of
    /// the call right after its end (a 603 to an INVITE, a BYE); `deinit` finishes the stream.
    func startOutbox() {
        let stream = outgoing, endpoint = self.endpoint
        Task { [weak self] in
            for await item in stream {
                switch item {
                case .transaction(let request):
                    let updates = await endpoint.startTransaction(request)
                    let cseq = try? request.headers.cseq()
                    Task { [weak self] in
                        for await update in updates {
                            switch update {
                            case .response(let response): await self?.signal { $0.receive(response) }
                            case .ended(.completed): break
                            case .ended(let end):
                                if let cseq { await self?.signal { $0.transactionFailed(cseq, end) } }
                            }
                        }
                    }
                case .response(let incoming, let response): await endpoint.respond(to: incoming, with: response)
                case .ack(let ack): await endpoint.sendStateless(ack)
                }
                await self?.taken()
            }
        }
    }

    /// The call-level state.
    public var state: CallState { machine.state }

    /// Whether `request`/`response` belong to this call (same Call-ID, RFC 3261 §12.2.2).
    public nonisolated func owns(_ headers: SIPHeaders) -> Bool { headers.callID == callID }

    // MARK: Commands

    /// Caller: sends the INVITE. Callee: takes the INVITE (the endpoint already sent 100 Trying).
    public func start() async {
        createdAt = clock.now
        startOutbox()
        await run(machine.start())
        await startWebRTCMedia()
        await gatherBeforeOffering()
        if let reason = await relayOnlyFailure() {
            await run(machine.hangUp(reason: .mediaFailed(reason)))
            return
        }
        await execute(usage.start())
        startMediaPump()
    }

    /// Callee: 180 Ringing (RFC 3261 §13.3.1.1).
    public func ring() async {
        guard let actions = try? usage.ring() else { return }
        await execute(actions)
        sink.yield(.ringing)
    }

    /// Callee: 200 OK with our SDP answer; media starts now (RFC 3261 §13.3.1.4, RFC 3264 §6).
    public func answer() async {
        guard machine.state == .ringing || machine.state == .early else { return }
        await awaitGathering()
        guard machine.state == .ringing || machine.state == .early else { return }
        if let reason = await relayOnlyFailure() {
            await run(machine.hangUp(reason: .mediaFailed(reason)))
            return
        }
        let body: SessionBody
        if let offer = usage.remoteInitialOffer {
            guard let answer = await answerBody(for: offer) else {
                await reject(status: 488)
                return
            }
            body = answer
        } else {
            body = nextOffer(direction: .sendrecv)  // offerless INVITE: offer in the 2xx, answer in the ACK
        }
        guard let actions = try? usage.answer(body) else { return }
        answeredAt = clock.now
        armWebRTCDeadline()
        await execute(actions)
        await run(machine.answered())
        if let audio = negotiated { sink.yield(answeredEvent(audio)) }
    }

    /// Callee: a final rejection (486 busy, 603 decline…), RFC 3261 §13.3.1.3.
    public func reject(status: Int) async {
        guard let actions = try? usage.reject(status: status) else { return }
        await run(machine.hangUp(reason: CallEndReason(.rejected(status: status))))
        await execute(actions)
    }

    /// Hangs up: CANCEL before the answer, BYE after it, 603 for an unanswered incoming call.
    public func hangUp() async {
        await run(machine.hangUp())
    }

    /// What the endpoint reported for this call: requests (BYE, re-INVITE, INFO…), ACKs,
    /// CANCELs, stray 2xx retransmissions, and flow changes.
    public func handle(_ event: EndpointEvent) async {
        switch event {
        case .request(let incomingRequest):
            guard owns(incomingRequest.request.headers) else { return }
            incoming[incomingRequest.key] = incomingRequest
            await execute(usage.receive(incomingRequest.request))
        case .ack(let ack):
            guard owns(ack.headers) else { return }
            await execute(usage.receive(ack))
        case .cancelled(let cancelled):
            guard owns(cancelled.request.headers) else { return }
            await execute(usage.inviteCancelled(cancelled.request))
        case .strayResponse(let response):
            guard owns(response.headers) else { return }
            await execute(usage.receive(response))
        case .flowUp(let binding, _):
            usage.updateBinding(binding)
        case .flowDown, .reconnectScheduled, .qualifyAnswered, .discarded, .stopped:
            break
        }
    }
}

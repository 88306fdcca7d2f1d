import SIPCore
import SIPTransport

/// The actor shell of one line's registration: it runs ``RegistrationClient`` over a
/// ``SIPEndpoint``, registers when the flow comes up, re-registers when a new flow replaces a
/// dead one (RFC 5626 §4.4.1), runs the refresh/retry timers on the injected clock, and
/// unregisters on ``stop(within:)``.
public actor LineRegistration {
    /// What the line reports, in order (unless ``deliverEvents(to:)`` took it).
    public nonisolated var events: AsyncStream<LineEvent> { sink.stream }
    private let sink = EventOutlet<LineEvent>()
    private let endpoint: SIPEndpoint
    private let clock: any Clock<Duration>
    private var client: RegistrationClient
    private var timers: [RegistrationClient.Timer: Task<Void, Never>] = [:]
    /// The refresh and retry timers' heap when many lines share one (a monitor): no task
    /// sleeps per line then. Nil: a task per timer on ``clock``.
    private let shared: LineTimers<ContinuousClock>?
    private let sharedOwner: UInt64
    /// The timers running on `shared`, each with the stamp of its latest start (a fire that
    /// was already on its way when the timer was restarted or cancelled is ignored).
    private var sharedStamps: [RegistrationClient.Timer: UInt64] = [:]
    private var nextStamp: UInt64 = 0
    /// The endpoint's events, handled in order by a task that runs only while there are some.
    private let inbox = SerialInbox<EndpointEvent>()
    private var pump: Task<Void, Never>?
    private var running = false
    private var started = false
    private var stopWaiters: [CheckedContinuation<Void, Never>] = []
    private let calls: AsyncStream<EndpointEvent>.Continuation?

    /// - Parameters:
    ///   - endpoint: the transaction layer over the line's flow; started by ``start()``.
    ///   - client: the registration machine (its settings and credentials).
    ///   - clock: runs the refresh and retry timers (tests pass a `TestClock`).
    ///   - calls: where the endpoint's call traffic goes (new requests, 2xx ACKs,
    ///   CANCELs, stray responses) when the line also places or takes calls; without it the line
    ///   is registration-only and answers every request itself (`RegistrationOnlyAnswer`:
    ///   INVITE 480, a cancelled INVITE 487, no dialog 481, …), so each server transaction ends.
    ///   - timers: runs the refresh and retry timers instead of `clock` (one heap for many lines).
    public init(endpoint: SIPEndpoint, client: RegistrationClient, clock: any Clock<Duration> = ContinuousClock(),
                calls: AsyncStream<EndpointEvent>.Continuation? = nil, timers: LineTimers<ContinuousClock>? = nil) {
        self.shared = timers
        sharedOwner = timers?.newOwner() ?? 0
        self.endpoint = endpoint
        self.client = client
        self.clock = clock
        self.calls = calls
    }

    deinit {
        pump?.cancel()
        inbox.discard()
        shared?.cancelAll(of: sharedOwner)
        for task in timers.values { task.cancel() }
        sink.finish()
    }

    /// From now on hands every event to `handler` instead of ``events`` — synchronously and in
    /// order, so it must only pass it on (a `SerialInbox`'s `yield`). Call it before
    /// ``start()``. - Returns: false when ``events`` was read first.
    @discardableResult
    public nonisolated func deliverEvents(to handler: @escaping @Sendable (LineEvent) -> Void) -> Bool {
        sink.redirect(to: handler)
    }

    /// The registration's current state.
    public var state: RegistrationClient.State { client.state }

    /// Starts the endpoint (and its flow); registration begins when the flow is up.
    public func start() async {
        guard !running else { return }
        running = true
        let inbox = inbox
        if endpoint.deliverEvents(to: { inbox.yield($0) }) {
            inbox.start { [weak self] event in await self?.handle(event) }
        } else {
            let stream = endpoint.events
            pump = Task { [weak self] in
                for await event in stream {
                    guard let self else { return }
                    await self.handle(event)
                }
            }
        }
        await endpoint.start()
    }

    /// Unregisters (when a binding may exist), waits for the answer — at most `bound` — and
    /// stops the endpoint. A dead server must not hold a tool for Timer F's 32 s.
    public func stop(within bound: Duration = .seconds(32)) async {
        execute(client.stop())
        if !isSettled {
            let clock = self.clock
            let release = Task { [weak self] in
                do { try await clock.sleep(for: bound) } catch { return }
                await self?.releaseStopWaiters()
            }
            await withCheckedContinuation { stopWaiters.append($0) }
            release.cancel()
        }
        for task in timers.values { task.cancel() }
        timers.removeAll()
        shared?.cancelAll(of: sharedOwner)
        sharedStamps.removeAll()
        await endpoint.stop()
        pump?.cancel()
        inbox.discard()
        sink.finish()
    }

    /// A keep-alive of the user's own (a monitor's OPTIONS to the registrar) failed: the flow is
    /// treated as failed (RFC 5626 §4.4.1) — the refresh stops and nothing is sent until
    /// ``keepAliveRecovered()``. Over UDP this is the only way a dead registrar is noticed
    /// before the binding expires; the transport's own flow death is still ``EndpointEvent/flowDown(_:)``.
    public func keepAliveFailed() {
        execute(client.flowLost())
    }

    /// The keep-alive is answered again: register at once on the current flow (RFC 5626 §4.4.1).
    public func keepAliveRecovered() {
        guard let binding = client.currentBinding else { return }
        execute(client.flowRecovered(binding: binding))
    }

    private func releaseStopWaiters() {
        let waiters = stopWaiters
        stopWaiters.removeAll()
        for waiter in waiters { waiter.resume() }
    }

    private var isSettled: Bool {
        switch client.state {
        case .unregistering, .registering: false
        default: true
        }
    }

    private func handle(_ event: EndpointEvent) async {
        if let calls {
            switch event {
            case .request, .ack, .cancelled, .strayResponse:
                calls.yield(event)
                return
            default:
                break
            }
        }
        switch event {
        case .flowUp(let binding, let reliable):
            sink.yield(.flowUp(binding, reliable: reliable))
            if started {
                execute(client.flowRecovered(binding: binding))
            } else {
                started = true
                execute(client.start(binding: binding))
            }
        case .flowDown(let error):
            sink.yield(.flowDown(error))
            execute(client.flowLost())
        case .reconnectScheduled(let attempt, let after):
            sink.yield(.reconnectScheduled(attempt: attempt, after: after))
        case .qualifyAnswered(let from):
            sink.yield(.qualifyAnswered(from: from))
        case .discarded(let why):
            sink.yield(.discarded(why))
        case .request(let incoming):
            // Registration-only: every request gets its final response here, in order.
            let settings = endpoint.settings
            await answer(incoming, RegistrationOnlyAnswer.answer(to: incoming.request, settings: settings))
        case .cancelled(let invite):
            // The CANCEL got 200 from the endpoint; a still pending INVITE gets 487 (§9.2).
            await answer(invite, RegistrationOnlyAnswer.cancelledInvite)
        case .ack, .strayResponse, .stopped:
            // An ACK for a 2xx we never sent, a response to nothing we sent: nothing to do.
            break
        }
    }

    private func answer(_ incoming: IncomingRequest, _ answer: RegistrationOnlyAnswer.Answer) async {
        await endpoint.answer(
            incoming, status: answer.status, reason: answer.reason, headers: answer.headers.map { ($0.name, $0.value) })
    }

    private func execute(_ actions: [RegistrationClient.Action]) {
        for action in actions {
            switch action {
            case .send(let request):
                let endpoint = self.endpoint
                let cseq = (try? request.headers.cseq())?.sequence
                Task {  // inherits the actor: `deliver` runs on it without a hop
                    let outcome = await endpoint.finalResponse(to: request)
                    self.deliver(outcome, cseq: cseq)
                }
            case .startTimer(let timer, let after):
                if let shared {
                    nextStamp &+= 1
                    let stamp = nextStamp
                    sharedStamps[timer] = stamp
                    shared.start(key(timer), after: after) { [weak self] in
                        Task { await self?.sharedFired(timer, stamp: stamp) }
                    }
                    continue
                }
                timers[timer]?.cancel()
                let clock = self.clock
                timers[timer] = Task { [weak self] in
                    do { try await clock.sleep(for: after) } catch { return }
                    await self?.fire(timer)
                }
            case .cancelTimer(let timer):
                if let shared {
                    sharedStamps[timer] = nil
                    shared.cancel(key(timer))
                    continue
                }
                timers.removeValue(forKey: timer)?.cancel()
            case .event(let event):
                sink.yield(.registration(event))
            }
        }
        if isSettled { releaseStopWaiters() }
    }

    private func deliver(_ outcome: Result<SIPResponse, TransactionEnd>, cseq: UInt32?) {
        switch outcome {
        case .success(let response): execute(client.receive(response))
        case .failure(let end): execute(client.transactionFailed(end, cseq: cseq))
        }
    }

    private func key(_ timer: RegistrationClient.Timer) -> LineTimers<ContinuousClock>.Key {
        .init(owner: sharedOwner, slot: timer == .refresh ? 0 : 1)
    }

    /// A timer on the shared heap fired; ignored when it was restarted or cancelled meanwhile.
    private func sharedFired(_ timer: RegistrationClient.Timer, stamp: UInt64) {
        guard sharedStamps[timer] == stamp else { return }
        sharedStamps[timer] = nil
        execute(client.timerFired(timer))
    }

    private func fire(_ timer: RegistrationClient.Timer) {
        guard timers.removeValue(forKey: timer) != nil else { return }
        execute(client.timerFired(timer))
    }
}

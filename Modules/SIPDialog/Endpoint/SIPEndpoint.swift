import SIPCore
import SIPTransport

/// The transaction layer of one user agent on one flow (RFC 3261 §17): it runs the four
/// transaction state machines, executes their actions on the channel with timers from the
/// injected clock, matches incoming messages (§17.1.3, §17.2.3), refuses requests that fail the
/// UAS checks of §8.2 (`RequestValidator`), drops responses whose Via is not ours (§18.1.2,
/// §8.1.3.3), sends 100 Trying for INVITEs, answers CANCEL and (optionally) OPTIONS itself, and
/// reports everything else as events.
public actor SIPEndpoint {
    /// What the endpoint reports, in order (unless ``deliverEvents(to:)`` took it).
    public nonisolated var events: AsyncStream<EndpointEvent> { sink.stream }
    let sink = EventOutlet<EndpointEvent>()
    let channel: any SIPMessageChannel
    let clock: any Clock<Duration>
    let ids: any IdentifierSource
    let timers: TransactionTimers
    let settings: EndpointSettings
    /// RFC 3261 §8.2 checks on new requests, built from ``EndpointSettings``.
    let validator: RequestValidator
    var clients: [TransactionKey: ClientRecord] = [:]
    var servers: [TransactionKey: ServerRecord] = [:]
    /// Every running RFC 3261 timer; one task sleeps until the earliest deadline.
    var timerQueue = TimerQueue()
    var timerWaker: Task<Void, Never>?
    /// The deadline `timerWaker` sleeps until, and its generation (a superseded waker is ignored).
    var timerWakeAt: Duration?
    var timerWakerGeneration: UInt64 = 0
    var firingTimers = false
    /// Time since the endpoint was created, on the injected clock.
    let elapsed: @Sendable () -> Duration
    var started = false
    /// The channel's events, handled in order by a task that runs only while there are some
    /// (a channel that cannot hand them over is read by `pump` instead).
    let inbox = SerialInbox<FlowEvent>()
    var pump: Task<Void, Never>?
    /// Messages in the outbox not yet handed to the channel (immediate sends wait for zero).
    var queuedSends = 0
    /// What waits to be sent, in order; its task runs only while something waits.
    let outbox = SerialInbox<OutgoingMessage>()
    public internal(set) var binding: LocalBinding?
    public internal(set) var reliable = false

    public init(channel: any SIPMessageChannel, clock: any Clock<Duration> = ContinuousClock(),
                ids: any IdentifierSource = SystemIdentifierSource(), timers: TransactionTimers = .rfc3261,
                settings: EndpointSettings = EndpointSettings()) {
        self.channel = channel
        self.clock = clock
        self.ids = ids
        self.timers = timers
        self.settings = settings
        self.validator = RequestValidator(allow: settings.allow, supported: settings.supported,
                                          uriSchemes: settings.uriSchemes)
        self.elapsed = Self.stopwatch(clock)
    }

    deinit {
        pump?.cancel()
        inbox.discard()
        outbox.discard()
        timerWaker?.cancel()
        sink.finish()
    }

    /// From now on hands every event to `handler` instead of ``events`` — synchronously and in
    /// order, so it must only pass it on (a `SerialInbox`'s `yield`). Call it before
    /// ``start()``. - Returns: false when ``events`` was read first.
    @discardableResult
    public nonisolated func deliverEvents(to handler: @escaping @Sendable (EndpointEvent) -> Void) -> Bool {
        sink.redirect(to: handler)
    }

    /// Starts the channel and the receive loop.
    public func start() async {
        guard !started else { return }
        started = true
        let channel = self.channel
        outbox.start { [weak self] message in
            do throws(TransportError) {
                try await channel.send(message.bytes)
                await self?.outboxSent()
            } catch {
                await self?.outboxSent()
                guard let key = message.key else { return }
                await self?.transportFailed(key, side: message.side)
            }
        }
        let inbox = self.inbox
        if channel.deliverEvents(to: { inbox.yield($0) }) {
            inbox.start { [weak self] event in await self?.handle(event) }
        } else {
            let stream = channel.events
            pump = Task { [weak self] in
                for await event in stream {
                    guard let self else { return }
                    await self.handle(event)
                }
            }
        }
        await channel.start()
    }

    /// Stops every timer and the channel; pending client transactions end with a transport error.
    public func stop() async {
        await channel.stop()
        failAllClients()
        timerQueue.removeAll()
        timerWaker?.cancel()
        timerWaker = nil
        timerWakeAt = nil
        pump?.cancel()
        pump = nil
        inbox.discard()
        outbox.finish()
        sink.yield(.stopped)
        sink.finish()
    }

    /// Starts a client transaction for `request` (INVITE or non-INVITE; never ACK) and returns
    /// its responses and its end.
    public func startTransaction(_ request: SIPRequest) -> AsyncStream<ClientTransactionUpdate> {
        let (stream, continuation) = AsyncStream.makeStream(of: ClientTransactionUpdate.self)
        start(request, listener: .updates(continuation))
        return stream
    }

    /// Convenience: the final response of a non-INVITE request, or how its transaction ended.
    /// (One continuation per waiter: no stream, no extra task.)
    public func finalResponse(to request: SIPRequest) async -> Result<SIPResponse, TransactionEnd> {
        await withCheckedContinuation { (continuation: CheckedContinuation<Result<SIPResponse, TransactionEnd>, Never>) in
            start(request, listener: .finalResponse(continuation))
        }
    }

    private func start(_ request: SIPRequest, listener: ClientListener) {
        guard let key = TransactionKey.client(request: request), clients[key] == nil else {
            var listener = listener
            listener.ended(.transportError)
            return
        }
        var record = ClientRecord(request: request, bytes: request.serialized(), reliable: reliable,
                                  timers: timers, listener: listener)
        let actions = record.machine.start()
        clients[key] = record
        run(actions, client: key)
    }

    static func stopwatch<C: Clock<Duration>>(_ clock: C) -> @Sendable () -> Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }

    /// Sends a request outside any transaction (the ACK for a 2xx, §13.2.2.4), in order with
    /// everything else this endpoint sends.
    public func sendStateless(_ request: SIPRequest) {
        transmit(request.serialized(), failing: nil, side: .client)
    }

    /// Answers a request through its server transaction.
    public func respond(to incoming: IncomingRequest, with response: SIPResponse) {
        guard var record = servers[incoming.key] else { return }
        let actions = record.machine.send(status: response.statusCode, response)
        servers[incoming.key] = record
        run(actions, server: incoming.key)
    }

    /// Answers a request with a response built here, as the endpoint's own answers are: a To
    /// tag when the request has none (§8.2.6.2), `Server`, then `headers`.
    public func answer(_ incoming: IncomingRequest, status: Int, reason: String? = nil,
                       headers: [(SIPHeaderName, String)] = []) {
        var response = automaticResponse(to: incoming.request, status: status, reason: reason, toTag: status > 100)
        for (name, value) in headers { response.headers.add(name, value) }
        respond(to: incoming, with: response)
    }

    /// Server transactions still running (answered ones wait for their ACK or Timer J/I/L).
    var serverTransactionCount: Int { servers.count }
}

/// Behaviour of the endpoint's built-in UAS parts.
public struct EndpointSettings: Sendable {
    /// Answer OPTIONS (qualify, RFC 3261 §11.2) with 200 automatically, in or out of dialog.
    public var answersOptions = true
    /// Methods we support, listed in Allow of automatic answers; a request for any other method
    /// gets 405 (recognised) or 501 (unknown) from the endpoint (RFC 3261 §8.2.1, §21.5.2).
    public var allow = "INVITE, ACK, CANCEL, BYE, OPTIONS, INFO, UPDATE, NOTIFY"
    public var accept = "application/sdp"
    /// Option tags we support: a request that requires any other gets 420 (RFC 3261 §8.2.2.3).
    public var supported = "path, outbound, timer"
    /// Request-URI schemes we accept; others get 416 (RFC 3261 §8.2.2.1).
    public var uriSchemes: Set<String> = ["sip", "sips"]
    public var userAgent = AstraVersion.product()

    public init() {}
}

/// One message waiting in the outbox, with the transaction to tell if sending fails.
struct OutgoingMessage: Sendable {
    let bytes: [UInt8]
    let key: TransactionKey?
    let side: TimerID.Side
}

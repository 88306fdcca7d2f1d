import SIPCore
import Synchronization

/// What a ``SIPFlow`` reports, in order.
public enum FlowEvent: Sendable {
    /// Connection attempt `attempt` (1 = first since the flow was last up) starts.
    case connecting(attempt: Int)
    /// The flow is up (after every reconnect too: re-register then — RFC 5626 §4.2.1).
    case connected(FlowInfo)
    /// A SIP message arrived on the flow.
    case message(ReceivedMessage)
    /// The flow died or an attempt failed; reconnecting follows unless stopped.
    case down(TransportError)
    /// The next attempt is due after `after` (capped exponential back-off with jitter).
    case reconnectScheduled(attempt: Int, after: Duration)
    /// ``SIPFlow/stop()`` was called; the last event.
    case stopped
}

/// The flow of one line to its server: connects, keeps alive (inside the connection),
/// notices death and reconnects with back-off — all reported as ``events``.
///
/// This is the type the dialog layer uses: `start()`, then read `events` (`.connected` →
/// (re-)register; `.message` → transactions), `send(_:)` requests and responses, `stop()`.
public actor SIPFlow {
    /// Opens one connection to the target (injected for tests; default: real sockets).
    /// Throws a ``TransportError`` (other errors are wrapped as `.connectFailed`).
    public typealias Connector = @Sendable (FlowTarget) async throws -> any FlowConnection

    public nonisolated let target: FlowTarget
    /// The events, in order (unless ``deliverEvents(to:)`` took them).
    public nonisolated var events: AsyncStream<FlowEvent> { sink.stream }
    private let sink = EventOutlet<FlowEvent>()
    private let connector: Connector
    private let clock: any Clock<Duration>
    private let ids: any IdentifierSource
    private let log: TransportLog
    private var machine: ReconnectMachine
    private var connection: (any FlowConnection)? {
        didSet { sendable.withLock { $0 = connection } }
    }
    /// `connection` for the nonisolated ``send(_:)`` (no actor hop per message).
    private let sendable = Mutex<(any FlowConnection)?>(nil)
    private var generation = 0 {
        didSet { liveGeneration.set(generation) }
    }
    /// `generation`, readable from the transport's queue (messages delivered without the hop
    /// through this actor).
    private let liveGeneration = GenerationBox()
    private var timer: Task<Void, Never>?
    private var viaHost: String
    private var running = false
    /// When the current connection came up (``FlowInfo/connectedAt``).
    private var connectedAt: WireTime?

    /// - Parameters:
    ///   - target: where to connect: host, port and transport.
    ///   - options: TLS, WebSocket, keep-alive and trace settings of every connection.
    ///   - clock: drives the back-off timer (and keep-alive of the connections it opens).
    ///   - ids: jitter for back-off and keep-alive, WebSocket keys and masks, `.invalid` host.
    ///   - reconnect: the back-off between attempts after the connection dies (RFC 5626 §4.5).
    ///   - connector: opens a connection; nil: the real one, ``connect(_:options:clock:ids:)``.
    public init(
        target: FlowTarget, options: ConnectionOptions = ConnectionOptions(),
        reconnect: ReconnectConfiguration = ReconnectConfiguration(),
        clock: any Clock<Duration> = ContinuousClock(), ids: any IdentifierSource = SystemIdentifierSource(),
        connector: Connector? = nil
    ) {
        self.target = target
        self.clock = clock
        self.ids = ids
        self.log = options.log
        machine = ReconnectMachine(configuration: reconnect, jitter: ids)
        viaHost = ids.token(length: 12).lowercased() + ".invalid"
        self.connector =
            connector ?? { target in
                try await SIPFlow.connect(target, options: options, clock: clock, ids: ids)
            }
    }

    deinit {
        timer?.cancel()
        sink.finish()
    }

    /// The real connector: UDP to the first resolved address, or a ``StreamConnection``.
    public static func connect(
        _ target: FlowTarget, options: ConnectionOptions, clock: any Clock<Duration>, ids: any IdentifierSource
    ) async throws(TransportError) -> any FlowConnection {
        if target.transport == .udp {
            let addresses = try await Resolver.resolve(server: target.host, port: target.port, transport: .udp)
            return try UDPFlowConnection(remote: addresses[0], trace: options.trace, log: options.log)
        }
        return try await StreamConnection.open(
            host: target.host, port: target.port, transport: target.transport, options: options, clock: clock, ids: ids)
    }

    /// Starts connecting; events follow.
    public func start() {
        guard !running else { return }
        running = true
        perform(machine.start())
    }

    /// From now on hands every event to `handler` instead of ``events`` — synchronously and in
    /// order, so it must only pass it on (a ``SerialInbox``'s `yield`): the reader then parks
    /// no task on the stream. Call it before ``start()``, or instead of ever reading ``events``.
    /// - Returns: false when ``events`` was read first.
    @discardableResult
    public nonisolated func deliverEvents(to handler: @escaping @Sendable (FlowEvent) -> Void) -> Bool {
        sink.redirect(to: handler)
    }

    /// Sends one SIP message on the current connection.
    public nonisolated func send(_ message: [UInt8]) async throws(TransportError) {
        guard let connection = sendable.withLock({ $0 }) else {
            throw TransportError(.notConnected, transport: target.transport, peer: target.description, "flow is down")
        }
        try await connection.send(message)
    }

    /// Sends `message` now without suspending when the connection can (UDP); false when nothing
    /// was sent and `send(_:)` must be used.
    public nonisolated func sendImmediately(_ message: [UInt8]) -> Bool {
        sendable.withLock { $0 }?.sendImmediately(message) ?? false
    }

    /// Sends one parsed/built SIP message (its `serialized()` form).
    public nonisolated func send(_ message: SIPMessage) async throws(TransportError) {
        try await send(message.serialized())
    }

    /// The current connection's details, nil while down.
    public var info: FlowInfo? { connection.map(info(for:)) }

    /// Closes the connection and stops reconnecting.
    public func stop() async {
        guard running else { return }
        running = false
        machine.stop()
        generation += 1
        timer?.cancel()
        let current = connection
        connection = nil
        await current?.close()
        sink.yield(.stopped)
        sink.finish()
    }

    private func info(for connection: any FlowConnection) -> FlowInfo {
        let ws = connection.transport.isWebSocket
        let sentBy = ws ? viaHost : (connection.local.map { "\($0.uriHost):\($0.port)" } ?? "invalid")
        let contactHost = ws ? viaHost : (connection.local.map { "\($0.uriHost):\($0.port)" } ?? "invalid")
        var info = FlowInfo(
            transport: connection.transport, local: connection.local, remote: connection.remote,
            viaSentBy: sentBy, contactHost: contactHost)
        info.connectedAt = connectedAt
        info.serverCertificateNotAfter = connection.serverCertificateNotAfter
        return info
    }

    private func perform(_ actions: [ReconnectMachine.Action]) {
        for action in actions {
            switch action {
            case .connect(let attempt):
                sink.yield(.connecting(attempt: attempt))
                generation += 1
                let current = generation
                let connector = connector
                let target = target
                Task {
                    let result: Result<any FlowConnection, TransportError>
                    do {
                        result = .success(try await connector(target))
                    } catch let error as TransportError {
                        result = .failure(error)
                    } catch {
                        result = .failure(
                            TransportError(
                                .connectFailed, transport: target.transport, peer: target.description, "\(error)"))
                    }
                    await self.attemptFinished(result, generation: current)
                }
            case .scheduleRetry(let attempt, let delay):
                sink.yield(.reconnectScheduled(attempt: attempt, after: delay))
                timer?.cancel()
                let clock = clock
                let current = generation
                timer = Task { [weak self] in
                    do { try await clock.sleep(for: delay) } catch { return }
                    await self?.retryDue(generation: current)
                }
            }
        }
    }

    private func retryDue(generation current: Int) {
        guard running, current == generation else { return }
        perform(machine.retryTimerFired())
    }

    private func attemptFinished(_ result: Result<any FlowConnection, TransportError>, generation current: Int) async {
        guard running, current == generation else {
            if case .success(let late) = result { await late.close() }
            return
        }
        switch result {
        case .failure(let error):
            sink.yield(.down(error))
            perform(machine.connectFailed())
        case .success(let established):
            connection = established
            connectedAt = WireTime.now()
            perform(machine.connectSucceeded())
            // Messages go straight from the transport into `events` when it can: no hop through
            // this actor per message (the generation check is the same as `forward`'s).
            let sink = sink
            let live = liveGeneration
            _ = established.deliverMessages { message in
                if live.get() == current { sink.yield(.message(message)) }
            }
            sink.yield(.connected(info(for: established)))
            // The connection's own events (messages it could not hand over directly, its end)
            // come through an inbox when it can: no task parked per connection.
            let inbox = SerialInbox<ConnectionEvent>()
            if established.deliverEvents(to: { inbox.yield($0) }) {
                inbox.start { [weak self] event in await self?.connectionEvent(event, generation: current) }
            } else {
                let stream = established.events
                Task {
                    for await event in stream { self.connectionEvent(event, generation: current) }
                }
            }
        }
    }

    private func connectionEvent(_ event: ConnectionEvent, generation current: Int) {
        switch event {
        case .message(let message): forward(message, generation: current)
        case .closed(let error): connectionEnded(error, generation: current)
        }
    }

    private func forward(_ message: ReceivedMessage, generation current: Int) {
        guard current == generation else { return }
        sink.yield(.message(message))
    }

    private func connectionEnded(_ error: TransportError, generation current: Int) {
        guard running, current == generation, connection != nil else { return }
        connection = nil
        log(.info, "flow \(target) down: \(error)")
        sink.yield(.down(error))
        perform(machine.flowDied())
    }
}

/// The flow's current generation, readable from any thread.
final class GenerationBox: Sendable {
    private let value = Mutex(0)
    func get() -> Int { value.withLock { $0 } }
    func set(_ new: Int) { value.withLock { $0 = new } }
}

import SIPCore
import SIPTransport

/// The IO shell of ``TortureSequence``: carries out its actions over SIPTransport (the one
/// transport stack: UDP, TCP, TLS, WS, WSS) and feeds back what happened. Timers sleep on the
/// injected clock. Events of a connection the machine closed are dropped (each connection has
/// a generation, each answer its socket), so a late close or answer of the previous message's
/// connection is not taken for the current one's.
///
/// Answers are read from the transport's trace hook (``SIPTrace/observing(_:_:)``), which sees
/// every received message before it is parsed: an answer that echoes a torture message's bad
/// header (and so does not parse) still counts. Only a close by the server
/// (``TransportError/Code/peerClosed``) is a close to the oracle: one our side made because an
/// answer did not frame is not.
public actor TortureRunner {
    /// Opens one connection (or the UDP socket) to the target: ``SIPFlow/connect(_:options:clock:ids:)``.
    public typealias Connector = @Sendable () async throws(TransportError) -> any FlowConnection

    struct Tagged: Sendable {
        /// The connection generation the event belongs to; nil for timers and answers.
        var generation: Int?
        /// The socket an answer arrived on (and from), checked against the current connection.
        var local: SocketAddress? = nil
        var remote: SocketAddress? = nil
        var event: TortureSequence.Event
    }

    var machine: TortureSequence
    let connector: Connector
    let clock: any Clock<Duration>
    let inbox: AsyncStream<Tagged>
    let sink: AsyncStream<Tagged>.Continuation
    var connection: (any FlowConnection)?
    var generation = 0
    var timers: [Task<Void, Never>] = []
    /// The last connection failure (a certificate that did not verify is configuration: exit 6).
    public private(set) var connectError: TransportError?

    /// A runner over the connector `make` returns, whose connections give every received
    /// message to the observer `make` is handed (as a trace hook).
    public init(
        _ machine: TortureSequence, clock: any Clock<Duration>,
        connector make: (_ observe: @escaping @Sendable (SIPTrace.Message) -> Void) -> Connector
    ) {
        self.machine = machine
        self.clock = clock
        let (inbox, sink) = AsyncStream.makeStream(of: Tagged.self)
        self.inbox = inbox
        self.sink = sink
        self.connector = make(Self.observer(sink))
    }

    /// A runner over the real transport to `target` (`options.trace`, e.g. `--pcap`, still sees
    /// every message).
    public init(
        _ machine: TortureSequence, target: FlowTarget, options: ConnectionOptions,
        clock: any Clock<Duration> = ContinuousClock(), ids: any IdentifierSource
    ) {
        self.init(machine, clock: clock) { observe in
            var traced = options
            traced.trace = SIPTrace.observing(options.trace, observe)
            let options = traced
            return { () async throws(TransportError) -> any FlowConnection in
                try await SIPFlow.connect(target, options: options, clock: clock, ids: ids)
            }
        }
    }

    /// The trace that turns every received response into an answer event.
    static func observer(_ sink: AsyncStream<Tagged>.Continuation) -> @Sendable (SIPTrace.Message) -> Void {
        { message in
            guard message.direction == .received, let answer = TortureAnswer(raw: message.bytes) else { return }
            sink.yield(Tagged(generation: nil, local: message.local, remote: message.remote, event: .received(answer)))
        }
    }

    /// Runs to the end; `onResult` gets each message's result as soon as it is known.
    public func run(onResult: @Sendable (TortureResult) -> Void) async -> TortureEnd {
        if let end = await perform(machine.start(), onResult) { return end }
        for await tagged in inbox {
            if let g = tagged.generation, g != generation { continue }
            if case .received = tagged.event {
                guard let connection, tagged.local == connection.local, tagged.remote == connection.remote else {
                    continue
                }
            }
            if let end = await perform(machine.handle(tagged.event), onResult) { return end }
        }
        return .stopped(after: nil, reason: "the run was cancelled")
    }

    /// Carries out `actions`; the end when one of them finishes the run.
    func perform(_ actions: [TortureSequence.Action], _ onResult: @Sendable (TortureResult) -> Void) async
        -> TortureEnd?
    {
        for action in actions {
            switch action {
            case .connect:
                generation += 1
                let g = generation
                Task { await self.open(g) }
            case .close:
                generation += 1
                if let old = connection {
                    connection = nil
                    await old.close()
                }
            case .send(let bytes, _):
                guard let connection else {
                    sink.yield(Tagged(generation: generation, event: .closed))
                    continue
                }
                do throws(TransportError) {
                    try await connection.send(bytes)
                } catch {
                    sink.yield(Tagged(generation: generation, event: .closed))
                }
            case .startTimer(let id, let after):
                let clock = clock
                let sink = sink
                timers.append(
                    Task {
                        guard (try? await clock.sleep(for: after)) != nil else { return }
                        sink.yield(Tagged(generation: nil, event: .timerFired(id)))
                    })
            case .report(let result):
                onResult(result)
            case .finish(let end):
                for timer in timers { timer.cancel() }
                timers = []
                return end
            }
        }
        return nil
    }

    func open(_ g: Int) async {
        let opened: any FlowConnection
        do throws(TransportError) {
            opened = try await connector()
        } catch {
            connectError = error
            sink.yield(Tagged(generation: g, event: .connectFailed(error.description)))
            return
        }
        guard g == generation else {
            await opened.close()
            return
        }
        connection = opened
        let sink = sink
        Task {
            for await event in opened.events {
                // Answers come through the trace; a close counts when the server made it.
                if case .closed(let error) = event, error.code == .peerClosed {
                    sink.yield(Tagged(generation: g, event: .closed))
                }
            }
        }
        sink.yield(Tagged(generation: g, event: .connected(sentBy: opened.local?.description ?? "")))
    }
}

import Metrics
import SIPCore
import SIPDialog
import SIPTransport
import ToolSupport

/// The actor shell of one monitored line: the line registered as a phone keeps it (a
/// ``SIPFlow`` with its reconnect back-off and keep-alive, a ``SIPEndpoint``, the one
/// ``LineRegistration`` path in keep mode), OPTIONS pings on the flow, and ``LineHealth``
/// deciding what that means; every change lands in the shared ``MetricsStore``. Its ping and
/// ping-timeout timers run on the process's shared ``LineTimers`` (no sleeping task per line).
public actor LineMonitor {
    public nonisolated let name: String
    public nonisolated let labels: MetricLabels
    private let setup: LineSetup
    private let flow: SIPFlow
    private let endpoint: SIPEndpoint
    private let registration: LineRegistration
    private let metrics: MetricsStore
    private let ids: any IdentifierSource
    private let clock = ContinuousClock()
    private let origin: ContinuousClock.Instant
    private let onChange: @Sendable (_ name: String, _ up: Bool, _ registered: Bool) -> Void
    private var health: LineHealth
    private var ping: OptionsPing
    private var binding: LocalBinding?
    private let timers: LineTimers<ContinuousClock>
    private let pingTimer: LineTimers<ContinuousClock>.Key
    private let timeoutTimer: LineTimers<ContinuousClock>.Key
    /// The registration's events, handled in order by a task that runs only while there are some.
    private let inbox = SerialInbox<LineEvent>()
    private var pump: Task<Void, Never>?
    private var reported: (up: Bool, registered: Bool)?
    /// Set first thing in ``stop(within:)``. A timer that fired just before its cancel still hops
    /// onto this actor (its `Task` was already made), as do a ping's answer and the inbox's last
    /// events; once stopped they change nothing, so a line removed on SIGHUP never puts its
    /// series back into /metrics.
    private var stopped = false

    /// - Parameters:
    ///   - timers: where the ping timers run; the monitor passes one for all its lines.
    ///   - onChange: called when `sip_line_up` or `sip_line_registered` of the line changes
    ///     (the tool's `line_state` event).
    public init(
        name: String, setup: LineSetup, settings: LineHealth.Settings, metrics: MetricsStore,
        diagnostics: Diagnostics, ids: any IdentifierSource = SystemIdentifierSource(),
        timers: LineTimers<ContinuousClock> = LineTimers(clock: ContinuousClock()),
        onChange: @escaping @Sendable (String, Bool, Bool) -> Void = { _, _, _ in }
    ) {
        self.name = name
        self.setup = setup
        self.metrics = metrics
        self.ids = ids
        self.onChange = onChange
        self.timers = timers
        let owner = timers.newOwner()
        pingTimer = .init(owner: owner, slot: 0)
        timeoutTimer = .init(owner: owner, slot: 1)
        origin = clock.now
        labels = MonitorMetrics.labels(
            line: name, transport: setup.transport.rawValue, server: "\(setup.target.host):\(setup.line.effectivePort)")
        health = LineHealth(settings: settings)
        var options = setup.connectionOptions(trace: nil, verbosity: 0, diagnostics: diagnostics)
        options.timers = timers
        flow = SIPFlow(target: setup.target, options: options, clock: clock, ids: ids)
        var endpointSettings = EndpointSettings()
        endpointSettings.userAgent = AstraVersion.product("astra-register")
        endpoint = SIPEndpoint(channel: flow, clock: clock, ids: ids, settings: endpointSettings)
        let client = RegistrationClient(
            aor: setup.aor, registrar: setup.registrar, displayName: setup.line.displayName,
            credentials: setup.credentials, settings: setup.registrationSettings(expires: nil, keep: true, ids: ids),
            ids: ids)
        registration = LineRegistration(endpoint: endpoint, client: client, clock: clock, timers: timers)
        ping = OptionsPing(
            aor: setup.aor, registrar: setup.registrar, userAgent: AstraVersion.product("astra-register"), ids: ids)
    }

    /// Creates the line's series and starts registering and pinging.
    public func start() async {
        let labels = labels
        metrics.update { MonitorMetrics.add(labels, to: &$0) }
        let inbox = inbox
        if registration.deliverEvents(to: { inbox.yield($0) }) {
            inbox.start { [weak self] event in await self?.handle(event) }
        } else {
            let events = registration.events
            pump = Task { [weak self] in
                for await event in events { await self?.handle(event) }
            }
        }
        await registration.start()
        publish()
    }

    /// Stops pinging, unregisters (bounded by `within`) and removes the line's series.
    public func stop(within bound: Duration = .seconds(3)) async {
        stopped = true
        timers.cancelAll(of: pingTimer.owner)
        await registration.stop(within: health.registered ? bound : .zero)
        pump?.cancel()
        inbox.discard()
        let labels = labels
        metrics.update { MonitorMetrics.remove(labels, from: &$0) }
    }

    private var now: Duration { origin.duration(to: clock.now) }

    private func handle(_ event: LineEvent) async {
        switch event {
        case .flowUp(let binding, _):
            self.binding = binding
            let notAfter = await flow.info?.serverCertificateNotAfter
            run(health.flowUp(certificateNotAfter: notAfter, now: now))
        case .flowDown(let error):
            run(health.flowDown(error, now: now))
        case .registration(.registering(_, let attempt)):
            run(health.registering(attempt: attempt, now: now))
        case .registration(.registered):
            run(health.registered(now: now))
        case .registration(.failed(let failure)):
            run(health.registrationFailed(failure, now: now))
        case .registration(.flowLost):
            run(health.registrationLostFlow(now: now))
        case .registration, .reconnectScheduled, .qualifyAnswered, .discarded:
            break
        }
    }

    private func run(_ actions: [LineHealth.Action]) {
        guard !stopped else { return }
        let labels = labels
        for action in actions {
            switch action {
            case .sendPing(let id):
                guard let binding else { continue }
                let request = ping.next(binding: binding, ids: ids)
                let endpoint = endpoint
                Task {
                    let outcome = await endpoint.finalResponse(to: request)
                    self.pingFinished(id, outcome)
                }
            case .schedulePing(let after):
                timers.start(pingTimer, after: after) { [weak self] in
                    Task { await self?.pingDue() }
                }
            case .schedulePingTimeout(let id, let after):
                timers.start(timeoutTimer, after: after) { [weak self] in
                    Task { await self?.pingTimedOut(id) }
                }
            case .cancelPingTimeout:
                timers.cancel(timeoutTimer)
            case .cancelPings:
                timers.cancel(pingTimer)
                timers.cancel(timeoutTimer)
            case .keepAliveFailed:
                let registration = registration
                Task { await registration.keepAliveFailed() }
            case .keepAliveRecovered:
                let registration = registration
                Task { await registration.keepAliveRecovered() }
            case .failure, .observeRegister, .observeOptions:
                metrics.update { MonitorMetrics.apply(action, labels, to: &$0) }
            }
        }
        publish()
    }

    private func publish() {
        guard !stopped else { return }
        let health = health
        let labels = labels
        metrics.update { MonitorMetrics.publish(health, labels, to: &$0) }
        let state = (health.up, health.registered)
        if reported.map({ $0 != state }) ?? true {
            reported = state
            onChange(name, state.0, state.1)
        }
    }

    private func pingDue() { run(health.pingDue(now: now)) }

    private func pingTimedOut(_ id: Int) { run(health.pingTimedOut(id: id, now: now)) }

    private func pingFinished(_ id: Int, _ outcome: Result<SIPResponse, TransactionEnd>) {
        switch outcome {
        case .success(let response):
            run(health.pingAnswered(id: id, status: response.statusCode, now: now))
        case .failure(let end):
            run(health.pingFailed(id: id, end, now: now))
        }
    }
}

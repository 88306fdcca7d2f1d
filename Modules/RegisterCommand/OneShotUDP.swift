import LineRunner
import SIPCore
import SIPDialog
import SIPTransport
import ToolSupport

/// A one-shot registration over UDP — the monitoring path (a Nagios check per line per minute) —
/// on the calling thread: one connected socket, one ``RegistrationLoad`` holding the line's
/// ``RegistrationClient`` and its RFC 3261 §17.1.2 transaction, `poll(2)` for the next datagram
/// or timer. The same pure machines as the endpoint path, without its actors and tasks: their
/// threads and hops were most of a one-shot's CPU beyond start-up (docs/decisions.md).
///
/// The socket is connected (RFC 3261 §18.1.1 allows it for a single server), so an ICMP port
/// unreachable for our REGISTER comes back as ECONNREFUSED on the next receive: the attempt ends
/// at once ("port unreachable", exit 3) instead of waiting for the timeout.
struct OneShotUDP {
    let owner: RegisterRun

    /// `--keep` and `--expect-qualify` need a server transaction layer and timers that outlive
    /// the registration: they stay on the endpoint path.
    static func applies(to setup: LineSetup, _ options: RegisterRun.Options) -> Bool {
        setup.target.transport == .udp && !options.keep && !options.expectQualify
    }

    /// How long the unregistration may take when a binding exists (as the endpoint path).
    static let unregisterBound = Duration.seconds(3)

    func run() -> ExitCode {
        let setup = owner.setup
        let options = owner.options
        let clock = ContinuousClock()
        let start = clock.now
        // Timings are stamped where the datagrams cross the socket, as on the endpoint path.
        let wire = WireTimings()
        var report = RegisterReport(setup: setup, start: WireTime.now(), wire: wire)
        let output = owner.eventOutput
        let interrupts = InterruptPipe()
        defer { interrupts.close() }

        let socket: UDPBatchSocket
        do throws(TransportError) {
            let port = setup.target.port ?? TransportKind.udp.defaultPort
            let addresses = try Resolver.resolveNow(host: setup.target.host, port: port, transport: .udp)
            socket = try UDPBatchSocket(connectedTo: addresses[0], trace: wire.trace(over: options.capture?.sipTrace))
        } catch {
            report.finish()
            return owner.conclude(report, RegisterRun.Outcome(exit: error.exitCode, message: error.toolMessage))
        }
        defer { socket.close() }
        let binding = LocalBinding(transport: .udp, host: socket.local.uriHost, port: socket.local.port)
        report.note(.flowUp(binding, reliable: false), connectedAt: WireTime.now(), output: output)

        let ids: any IdentifierSource = options.seed.map { SeededIdentifierSource(seed: $0) } ?? SystemIdentifierSource()
        let settings = setup.registrationSettings(
            expires: options.expires, keep: false, ids: ids, expiresPolicy: options.expiresPolicy)
        report.noteExpires(settings, diagnostics: owner.context.diagnostics)
        let client = RegistrationClient(
            aor: setup.aor, registrar: setup.registrar, displayName: setup.line.displayName,
            credentials: setup.credentials, settings: settings, ids: ids)
        var engine = RegistrationLoad(clients: [client], binding: binding, reliable: false, concurrency: 1)
        engine.recordsEvents = true

        var step = Stepper(socket: socket, clock: clock, start: start, interrupts: interrupts)
        let ended = step.run(.register, on: &engine, until: start + options.timeout) { event in
            report.note(.registration(event), output: output)
        }
        var outcome: RegisterRun.Outcome
        switch ended {
        case .finished(.registered):
            outcome = RegisterRun.Outcome(exit: .success, message: nil)
        case .finished(.failed(let failure)):
            outcome = RegisterRun.Outcome(exit: RegisterRun.exitCode(for: failure), message: failure.description)
        case .finished(.abandoned):
            // Only a load run abandons lines; kept for the switch to stay exhaustive.
            outcome = RegisterRun.Outcome(exit: .network, message: "abandoned before registering")
        case .finished(.unregistered):
            outcome = RegisterRun.Outcome(exit: .network, message: "unregistered before registering")
        case .portUnreachable(let remote):
            outcome = RegisterRun.Outcome(exit: .network, message: "\(remote): port unreachable (ICMP): nothing listens there")
            report.failure = nil
        case .deadline:
            outcome = RegisterRun.Outcome(
                exit: .network, message: "timeout after \(options.timeout) waiting for \(report.waitingFor)")
        case .interrupted(let signal):
            outcome = RegisterRun.Outcome(exit: .network, message: "interrupted by \(signal) before registering")
        }
        if report.registered {
            let unregistered = step.run(.unregister, on: &engine, until: clock.now + Self.unregisterBound) { event in
                report.note(.registration(event), output: output)
            }
            if case .finished(.unregistered) = unregistered { report.unregistered = true } else { report.unregistered = false }
        }
        report.finish()
        return owner.conclude(report, outcome)
    }

    /// Steps one phase of the engine until its line finishes, the deadline passes, the socket
    /// reports an ICMP error, or SIGINT/SIGTERM arrives.
    struct Stepper {
        enum End {
            case finished(RegistrationLoad.Outcome.Result)
            case portUnreachable(SocketAddress)
            case deadline
            case interrupted(ToolSignal)
        }

        let socket: UDPBatchSocket
        let clock: ContinuousClock
        let start: ContinuousClock.Instant
        let interrupts: InterruptPipe
        private let limits = SIPParserLimits(maxBodySize: 65_535)

        init(socket: UDPBatchSocket, clock: ContinuousClock, start: ContinuousClock.Instant, interrupts: InterruptPipe) {
            self.socket = socket
            self.clock = clock
            self.start = start
            self.interrupts = interrupts
        }

        var now: Duration { clock.now - start }

        mutating func run(
            _ phase: RegistrationLoad.Phase, on engine: inout RegistrationLoad, until deadline: ContinuousClock.Instant,
            event: (RegistrationEvent) -> Void
        ) -> End {
            engine.begin(phase, now: now)
            while true {
                if let end = flush(&engine, event) { return end }
                let remaining = deadline - clock.now
                guard remaining > .zero else { return .deadline }
                let wait = min(remaining, engine.nextDeadline().map { max(.zero, $0 - now) } ?? remaining)
                switch interrupts.wait(forReadable: socket.descriptor, timeout: wait) {
                case .interrupted(let signal):
                    return .interrupted(signal)
                case .readable:
                    let received = now
                    do {
                        try socket.receiveAll { bytes in
                            guard let message = try? SIPMessage(parsing: Array(bytes), limits: limits),
                                case .response(let response) = message
                            else { return }
                            engine.receive(response, now: received)
                        }
                    } catch {
                        return .portUnreachable(socket.remote)
                    }
                case .timeout:
                    break
                }
                engine.fireTimers(now: now)
            }
        }

        /// Sends what the engine produced and reports its events; the line's outcome ends the phase.
        private func flush(
            _ engine: inout RegistrationLoad, _ event: (RegistrationEvent) -> Void
        ) -> End? {
            var ended: End?
            while engine.hasOutput {
                let messages = engine.takeOutgoing()
                if !messages.isEmpty {
                    do { try socket.send(messages) } catch { return .portUnreachable(socket.remote) }
                }
                for (_, e) in engine.takeEvents() { event(e) }
                if let outcome = engine.takeOutcomes().first { ended = .finished(outcome.result) }
            }
            for (_, e) in engine.takeEvents() { event(e) }
            return ended
        }
    }
}

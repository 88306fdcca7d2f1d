import AstraJSON
import SIPCore
import SIPDialog
import LineRunner
import SIPTransport
import Synchronization
import ToolSupport

/// Every line to one UDP server on one socket and one loop, and the connecting of a stream
/// endpoint within the setup timeout.
extension LoadRun {
    /// Every line to one UDP server: one socket, one ``RegistrationLoad`` stepped by one loop,
    /// paced by ``LoadRunControl``; SIGINT/SIGTERM stop it (a second one skips unregistering).
    func runUDP(_ setups: [LineSetup], target: FlowTarget, ids: SystemIdentifierSource,
                        instance: String) async -> ExitCode {
        let socket: UDPBatchSocket
        do {
            let addresses = try await Resolver.resolve(server: target.host, port: target.port, transport: .udp)
            socket = try UDPBatchSocket(connectedTo: addresses[0], trace: options.capture?.sipTrace)
        } catch {
            context.diagnostics.error("\(target): \(error)")
            return .network
        }
        defer { socket.close() }
        let binding = LocalBinding(transport: .udp, host: socket.local.uriHost, port: socket.local.port)
        let clients = setups.map { client(for: $0, ids: ids, instance: instance) }
        let engine = RegistrationLoad(
            clients: clients, binding: binding, reliable: false, concurrency: concurrency,
            lineTimeout: options.timeout, paced: true, cycles: options.duration != nil)
        let loop = UDPLoadLoop(engine: engine, socket: socket)
        let signals = Task { for await signal in await SignalEvents.stream() { _ = signal; loop.requestStop(.signal) } }
        defer { signals.cancel() }
        let aors = setups.map { $0.aor.description }
        let collected = Mutex<[LineOutcome]>([])
        let progress = LoadProgress(output: context.output)
        let started = ContinuousClock.now
        let control = LoadRunControl(settings: controlSettings(lines: setups.count), now: loop.now)
        await loop.run(.register, control: control, progress: { progress.report($0) }) { [self] batch in
            // One write for the lines finished in one turn of the loop.
            var text = ""
            var outcomes: [LineOutcome] = []
            for finished in batch {
                var outcome: LineOutcome
                switch finished.result {
                case .registered, .unregistered:
                    outcome = LineOutcome(index: finished.index, aor: aors[finished.index],
                                          latency: finished.latency, exit: .success)
                case .failed(let failure):
                    outcome = LineOutcome(index: finished.index, aor: aors[finished.index],
                                          exit: RegisterRun.exitCode(for: failure), reason: failure.description)
                case .abandoned:
                    outcome = LineOutcome(index: finished.index, aor: aors[finished.index], exit: .success,
                                          reason: Self.abandoned)
                    outcome.abandoned = true
                }
                outcomes.append(outcome)
                text += render(outcome)
            }
            progress.write(text)
            collected.withLock { $0 += outcomes }
        }
        let wall = ContinuousClock.now - started
        let finalControl = loop.control ?? control
        progress.finish(finalControl.progress(now: loop.now))
        if loop.stopRequests < 2 {
            await loop.run(.unregister) { _ in }
        } else {
            context.diagnostics.warning("second signal: bindings are left to expire")
        }
        return finish(collected.withLock { $0 }, control: finalControl, wall: wall)
    }

    /// A line's registration; every line of the run shares `instance` (one device).
    func client(for setup: LineSetup, ids: SystemIdentifierSource, instance: String) -> RegistrationClient {
        var settings = setup.registrationSettings(expires: options.expires, keep: false, ids: ids, expiresPolicy: options.expiresPolicy)
        settings.instanceID = instance
        return RegistrationClient(aor: setup.aor, registrar: setup.registrar, credentials: setup.credentials,
                                  settings: settings, ids: ids)
    }

    /// Starts an endpoint and waits for its flow (bounded by the timeout).
    static func connect(_ endpoint: SIPEndpoint, clock: ContinuousClock, timeout: Duration)
        async -> Result<LocalBinding, LoadError> {
        let events = endpoint.events
        let waiter = Task { () -> Result<LocalBinding, LoadError> in
            for await event in events {
                switch event {
                case .flowUp(let binding, _): return .success(binding)
                case .flowDown(let error): return .failure(LoadError(error.description))
                default: continue
                }
            }
            return .failure(LoadError("flow ended"))
        }
        // Cancels the waiter only when the time is really up: cancelling the bound itself (the
        // flow answered first) must not cancel the waiter too. It once did (`try?` swallowed the
        // cancellation and fell through to `waiter.cancel()`), and on a loaded machine a flow that
        // was up within milliseconds was then reported as "timeout after 10 s connecting".
        let bound = Task {
            do { try await clock.sleep(for: timeout) } catch { return }
            waiter.cancel()
        }
        await endpoint.start()
        let result = await waiter.value
        bound.cancel()
        // Keep draining events (qualifies, stray responses) so the stream never piles up.
        Task { for await _ in events {} }
        if case .success = result { return result }  // a flow that came up is up, whatever raced
        return waiter.isCancelled ? .failure(LoadError("timeout after \(timeout) connecting")) : result
    }
}

import AstraJSON
import SIPCore
import SIPDialog
import LineRunner
import SIPTransport
import Synchronization
import ToolSupport

/// Load mode: register every line of a JSON Lines file, `concurrency` at a time; report each
/// line and a summary with the rate and latency percentiles.
///
/// Lines that share a server and transport share one flow and one transaction layer (like
/// sipp's single socket): each line is only a ``RegistrationClient`` value driven by a child
/// task, so a thousand lines cost a thousand small structs, not a thousand sockets and actors.
/// Phase 1 (timed) registers; phase 2 (untimed) unregisters every binding.
///
/// When every line goes to one UDP server (the common load test, and sipp's setup), the lines
/// are stepped by one ``RegistrationLoad`` in one loop on one socket instead (``UDPLoadLoop``,
/// decision D13): no task or actor hop per response. The whole run is one device (RFC 5626
/// §4.1): every line shares one `+sip.instance`, so repeated lines of an address of record
/// replace its binding instead of piling up new ones.
struct LoadRun {
    let path: String
    let concurrency: Int
    let options: RegisterRun.Options
    let context: ToolContext

    struct LineOutcome: Sendable {
        var index: Int
        var aor: String
        var latency: Duration?
        var exit: ExitCode
        var reason: String?
        /// The registration, kept for the cleanup phase when it got a binding.
        var client: RegistrationClient?
        /// In flight when the run stopped (signal, run timeout): neither a success nor a failure.
        var abandoned = false
        /// Connection-oriented load: connect + TLS + upgrade, and why the line failed.
        var handshake: Duration?
        var cause: String?
    }

    func run() async -> ExitCode {
        let setups: [LineSetup]
        do {
            setups = try readLines().map { line throws(ToolError) in try LineSetup(line: line, insecure: options.insecure) }
        } catch {
            context.diagnostics.error(error.message)
            return error.exitCode
        }
        let clock = ContinuousClock()
        let ids = SystemIdentifierSource()
        if let mode = options.streamMode { return await runStream(setups, mode: mode, ids: ids) }
        let instance = "urn:uuid:" + ids.uuidString()
        if let target = setups.first?.target, target.transport == .udp, setups.allSatisfy({ $0.target == target }) {
            return await runUDP(setups, target: target, ids: ids, instance: instance)
        }
        var endpoints: [FlowTarget: SIPEndpoint] = [:]
        var bindings: [FlowTarget: LocalBinding] = [:]
        for setup in setups where endpoints[setup.target] == nil {
            var connection = setup.connectionOptions(trace: options.capture?.sipTrace, verbosity: options.verbosity,
                                                     diagnostics: context.diagnostics)
            connection.keepAlive = nil
            let endpoint = SIPEndpoint(channel: SIPFlow(target: setup.target, options: connection, clock: clock, ids: ids),
                                       clock: clock, ids: ids)
            switch await Self.connect(endpoint, clock: clock, timeout: options.timeout) {
            case .success(let binding):
                endpoints[setup.target] = endpoint
                bindings[setup.target] = binding
            case .failure(let reason):
                context.diagnostics.error("\(setup.target): \(reason)")
                return .network
            }
        }

        let started = clock.now
        let run = await runLines(setups, endpoints: endpoints, bindings: bindings, ids: ids, instance: instance,
                                 clock: clock)
        let wall = clock.now - started
        await unregister(run.outcomes, setups: setups, endpoints: endpoints, clock: clock)
        for endpoint in endpoints.values { await endpoint.stop() }
        return finish(run.outcomes, control: run.control, wall: wall)
    }

    /// What drives one line on the endpoint path.
    enum LineInput: Sendable {
        case finished(LineOutcome, generation: Int)
        case wake
        case signal
    }

    /// The endpoint path (TCP, TLS, WS, WSS, or several servers), paced by the same
    /// ``LoadRunControl`` as the UDP loop: each admitted line is a task that drives its
    /// registration to its outcome or to `--timeout`; a stop abandons the lines in flight.
    func runLines(_ setups: [LineSetup], endpoints: [FlowTarget: SIPEndpoint],
                          bindings: [FlowTarget: LocalBinding], ids: SystemIdentifierSource, instance: String,
                          clock: ContinuousClock) async -> (outcomes: [LineOutcome], control: LoadRunControl) {
        let origin = clock.now
        func now() -> Duration { clock.now - origin }
        var control = LoadRunControl(settings: controlSettings(lines: setups.count), now: now())
        let progress = LoadProgress(output: context.output)
        let (inputs, feed) = AsyncStream.makeStream(of: LineInput.self)
        let signals = Task { for await _ in await SignalEvents.stream() { feed.yield(.signal) } }
        defer { signals.cancel() }
        var outcomes: [LineOutcome] = []
        var inFlight: [Int: Int] = [:]  // line index → generation
        var generation = 0
        var next = 0
        var ticker: Task<Void, Never>?
        func admitLines() {
            while control.admit(now: now()) {
                var index: Int?
                for _ in 0..<setups.count {
                    let candidate = next % setups.count
                    next += 1
                    if inFlight[candidate] == nil { index = candidate; break }
                }
                guard let index else {
                    control.unstart()
                    break
                }
                generation += 1
                inFlight[index] = generation
                let setup = setups[index], endpoint = endpoints[setup.target]!, binding = bindings[setup.target]!
                let mine = generation, timeout = options.timeout
                Task {
                    let aor = setup.aor.description
                    let outcome = await Self.first(within: timeout, clock: clock) {
                        await register(index, setup, endpoint: endpoint, binding: binding, ids: ids,
                                       instance: instance, clock: clock)
                    } otherwise: {
                        LineOutcome(index: index, aor: aor, exit: .network,
                                    reason: "no final answer within \(timeout) (--timeout)")
                    }
                    feed.yield(.finished(outcome, generation: mine))
                }
            }
        }
        admitLines()
        while !control.isDone {
            ticker?.cancel()
            let wake = max(.zero, control.nextDeadline(now: now()) - now())
            ticker = Task {
                do { try await clock.sleep(for: min(wake, .milliseconds(100))) } catch { return }
                feed.yield(.wake)
            }
            guard let input = await inputs.first(where: { _ in true }) else { break }
            switch input {
            case .finished(let outcome, let mine):
                guard inFlight[outcome.index] == mine else { continue }  // abandoned earlier
                inFlight[outcome.index] = nil
                control.finished(ok: outcome.exit == .success, latency: outcome.latency)
                outcomes.append(outcome)
                progress.write(render(outcome))
            case .signal:
                control.stop(.signal)
            case .wake:
                break
            }
            if let report = control.tick(now: now()) { progress.report(report) }
            if control.abandonsRunning {
                for index in inFlight.keys.sorted() {
                    let outcome = LineOutcome(index: index, aor: setups[index].aor.description, exit: .success,
                                              reason: Self.abandoned, abandoned: true)
                    control.finished(ok: false, latency: nil, abandoned: true)
                    outcomes.append(outcome)
                    progress.write(render(outcome))
                }
                inFlight.removeAll()
            } else if control.stopReason == nil {
                admitLines()
            }
        }
        ticker?.cancel()
        progress.finish(control.progress(now: now()))
        return (outcomes, control)
    }

    /// `body`'s result, or `fallback()` when it takes longer than `timeout` (`--timeout` per
    /// line: the transaction it left ends by itself, its answer is ignored).
    static func first<T: Sendable>(within timeout: Duration, clock: ContinuousClock,
                                           _ body: @escaping @Sendable () async -> T,
                                           otherwise fallback: @escaping @Sendable () -> T) async -> T {
        let first = FirstResult<T>()
        return await withCheckedContinuation { continuation in
            first.set(continuation)
            Task { first.resume(with: await body()) }
            Task {
                try? await clock.sleep(for: timeout)
                first.resume(with: fallback())
            }
        }
    }
}

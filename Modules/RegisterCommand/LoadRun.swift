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
    private enum LineInput: Sendable {
        case finished(LineOutcome, generation: Int)
        case wake
        case signal
    }

    /// The endpoint path (TCP, TLS, WS, WSS, or several servers), paced by the same
    /// ``LoadRunControl`` as the UDP loop: each admitted line is a task that drives its
    /// registration to its outcome or to `--timeout`; a stop abandons the lines in flight.
    private func runLines(_ setups: [LineSetup], endpoints: [FlowTarget: SIPEndpoint],
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
    private static func first<T: Sendable>(within timeout: Duration, clock: ContinuousClock,
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

    static let abandoned = "abandoned: the run stopped"

    /// The run control's settings from the options.
    func controlSettings(lines: Int) -> LoadRunControl.Settings {
        LoadRunControl.Settings(concurrency: concurrency, lines: lines, rate: options.rate,
                                runTimeout: options.runTimeout, duration: options.duration)
    }

    /// Prints the summary (with the stop reason and counts) and picks the exit code: a run
    /// timeout is 3; otherwise the finished lines decide (abandoned ones are not failures).
    func finish(_ outcomes: [LineOutcome], control: LoadRunControl, wall: Duration,
                extra: JSONObject = [:]) -> ExitCode {
        var fields = summary(outcomes, control: control, wall: wall)
        for (key, value) in extra.entries { fields[key] = value }
        context.output.emit("load_summary", fields, text: Self.text(summary: fields))
        if control.stopReason == .runTimeout {
            context.diagnostics.error("run timeout after \(options.runTimeout ?? .zero): summary of the lines so far")
            return .network
        }
        if control.stopReason == .signal { context.diagnostics.error("interrupted: summary of the lines so far") }
        let done = outcomes.filter { !$0.abandoned }
        if done.allSatisfy({ $0.exit == .success }) { return .success }
        return done.contains { $0.exit == .network } ? .network : .failure
    }

    /// The `line_result` event of `outcome`, rendered (written through ``LoadProgress/write(_:)``).
    func render(_ outcome: LineOutcome) -> String {
        context.output.render("line_result", fields(outcome), text: Self.text(outcome))
    }

    func fields(_ outcome: LineOutcome) -> JSONObject {
        var fields: JSONObject = [
            "aor": .string(outcome.aor), "registered": .bool(outcome.exit == .success && !outcome.abandoned),
        ]
        if outcome.abandoned { fields["abandoned"] = .bool(true) }
        fields["ms"] = outcome.latency.map { .double(Double($0.microseconds) / 1000) } ?? .null
        if let handshake = outcome.handshake { fields["handshake_ms"] = .double(Double(handshake.microseconds) / 1000) }
        if let reason = outcome.reason { fields["reason"] = .string(reason) }
        if let cause = outcome.cause { fields["cause"] = .string(cause) }
        return fields
    }

    /// Every line to one UDP server: one socket, one ``RegistrationLoad`` stepped by one loop,
    /// paced by ``LoadRunControl``; SIGINT/SIGTERM stop it (a second one skips unregistering).
    private func runUDP(_ setups: [LineSetup], target: FlowTarget, ids: SystemIdentifierSource,
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
    private static func connect(_ endpoint: SIPEndpoint, clock: ContinuousClock, timeout: Duration)
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
        let bound = Task {
            try? await clock.sleep(for: timeout)
            waiter.cancel()
        }
        await endpoint.start()
        let result = await waiter.value
        bound.cancel()
        // Keep draining events (qualifies, stray responses) so the stream never piles up.
        Task { for await _ in events {} }
        return waiter.isCancelled ? .failure(LoadError("timeout after \(timeout) connecting")) : result
    }

    struct LoadError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// Lines in one load file (docs/man/astra-register.md): each costs a registration machine.
    static let maxLines = 100_000

    /// The file's lines, read line by line with a per-line limit (InputReader.Limit.loadLine).
    private func readLines() throws(ToolError) -> [Line] {
        var lines: [Line] = []
        var kept = 0
        try InputReader.forEachLine(path == "-" ? nil : path, maxLine: .loadLine, maxLines: Self.maxLines) {
            row, number throws(ToolError) in
            // --shard I/N: this process takes lines I, I+N, I+2N… (0-based, blank lines skipped).
            if let shard = options.shard, !row.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) {
                defer { kept += 1 }
                guard shard.takes(kept) else { return }
            }
            var bytes = row
            while let first = bytes.first, first == 0x20 || first == 0x09 || first == 0x0D { bytes.removeFirst() }
            while let last = bytes.last, last == 0x20 || last == 0x09 || last == 0x0D { bytes.removeLast() }
            guard !bytes.isEmpty else { return }
            let line: Line
            do {
                line = try Line(json: bytes)
            } catch {
                throw ToolError(.usage, "\(path):\(number): \(error)")
            }
            // The file's line alone cannot turn verification off: --insecure must say so too.
            if !options.insecure, !line.effectiveTLSVerify {
                throw ToolError(.usage, "\(path):\(number): \(LineSetup.insecureRefusal)")
            }
            lines.append(line)
        }
        guard !lines.isEmpty else {
            throw ToolError(.usage, "\(path): no lines" + (options.shard.map { " in shard \($0)" } ?? ""))
        }
        return lines
    }

    /// One line: drive its registration machine to its first outcome over the shared endpoint.
    private func register(_ index: Int, _ setup: LineSetup, endpoint: SIPEndpoint, binding: LocalBinding,
                          ids: SystemIdentifierSource, instance: String, clock: ContinuousClock) async -> LineOutcome {
        var client = client(for: setup, ids: ids, instance: instance)
        let aor = setup.aor.description
        let start = clock.now
        var actions = client.start(binding: binding)
        while true {
            var request: SIPRequest?
            for action in actions {
                switch action {
                case .send(let r): request = r
                case .event(.registered):
                    return LineOutcome(index: index, aor: aor, latency: clock.now - start, exit: .success, client: client)
                case .event(.failed(let failure)):
                    return LineOutcome(index: index, aor: aor, exit: RegisterRun.exitCode(for: failure),
                                       reason: failure.description)
                default: continue
                }
            }
            guard let request else {
                return LineOutcome(index: index, aor: aor, exit: .failure, reason: "registration stalled")
            }
            switch await endpoint.finalResponse(to: request) {
            case .success(let response): actions = client.receive(response)
            case .failure(let end): actions = client.transactionFailed(end)
            }
        }
    }

    /// Phase 2: removes every binding, `concurrency` at a time, each REGISTER bounded by
    /// `--timeout` (a server gone silent must not hold the exit for Timer F). A signal now — the
    /// run's second, or the first after a run that completed — leaves the rest to expire, as in
    /// the UDP loop.
    private func unregister(_ outcomes: [LineOutcome], setups: [LineSetup], endpoints: [FlowTarget: SIPEndpoint],
                            clock: ContinuousClock) async {
        let registered = outcomes.filter { $0.client != nil }
        guard !registered.isEmpty else { return }
        let concurrency = concurrency, timeout = options.timeout
        let signals = await SignalEvents.stream()
        let outcome = FirstResult<Bool>()
        let watcher = Task {
            for await _ in signals {
                outcome.resume(with: false)
                return
            }
        }
        defer { watcher.cancel() }
        let completed = await withCheckedContinuation { continuation in
            outcome.set(continuation)
            Task {
                await withTaskGroup(of: Void.self) { group in
                    var next = 0
                    func launch() {
                        guard next < registered.count else { return }
                        var client = registered[next].client!
                        let endpoint = endpoints[setups[registered[next].index].target]!
                        next += 1
                        group.addTask {
                            for case .send(let request) in client.stop() {
                                _ = await Self.first(within: timeout, clock: clock) {
                                    await endpoint.finalResponse(to: request)
                                } otherwise: { .failure(.timeout) }
                            }
                        }
                    }
                    for _ in 0..<min(concurrency, registered.count) { launch() }
                    for await _ in group { launch() }
                }
                outcome.resume(with: true)
            }
        }
        if !completed { context.diagnostics.warning("signal while unregistering: bindings are left to expire") }
    }

    private func summary(_ outcomes: [LineOutcome], control: LoadRunControl, wall: Duration) -> JSONObject {
        let done = outcomes.filter { !$0.abandoned }
        let latencies = done.compactMap(\.latency).map { Double($0.microseconds) / 1000 }.sorted()
        func percentile(_ p: Double) -> JSONValue {
            guard !latencies.isEmpty else { return .null }
            let index = min(latencies.count - 1, Int((p / 100 * Double(latencies.count)).rounded(.up)) - 1)
            return .double(latencies[max(0, index)])
        }
        let seconds = Double(wall.microseconds) / 1_000_000
        // The counts are the run control's, the ones the progress line showed.
        let counts = control.counts
        var fields: JSONObject = ["lines": .int(control.settings.lines)]
        for (key, value) in LoadReport.counts(counts).entries { fields[key] = value }
        let rest: JSONObject = [
            "stopped": .string((control.stopReason ?? .completed).rawValue),
            "concurrency": .int(concurrency), "rate_limit": options.rate.map(JSONValue.double) ?? .null,
            "wall_ms": .double(seconds * 1000),
            "rate_per_s": .double(seconds > 0 ? Double(counts.registered) / seconds : 0),
            "latency_ms": .object([
                "p50": percentile(50), "p90": percentile(90), "p99": percentile(99),
                "max": latencies.last.map(JSONValue.double) ?? .null,
            ]),
        ]
        for (key, value) in rest.entries { fields[key] = value }
        return fields
    }
}

/// The first of several results to arrive, handed to one continuation (the others are dropped).
final class FirstResult<T: Sendable>: Sendable {
    private let state = Mutex<(continuation: CheckedContinuation<T, Never>?, done: Bool)>((nil, false))

    func set(_ continuation: CheckedContinuation<T, Never>) { state.withLock { $0.continuation = continuation } }

    func resume(with value: T) {
        let continuation: CheckedContinuation<T, Never>? = state.withLock {
            guard !$0.done, let c = $0.continuation else { return nil }
            $0.done = true
            $0.continuation = nil
            return c
        }
        continuation?.resume(returning: value)
    }
}

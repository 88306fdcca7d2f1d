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
    }

    func run() async -> ExitCode {
        let setups: [LineSetup]
        do {
            setups = try readLines().map { line throws(ToolError) in try LineSetup(line: line) }
        } catch {
            context.diagnostics.error(error.message)
            return error.exitCode
        }
        let clock = ContinuousClock()
        let ids = SystemIdentifierSource()
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

        let start = clock.now
        var outcomes: [LineOutcome] = []
        await withTaskGroup(of: LineOutcome.self) { group in
            var next = 0
            func launch() {
                guard next < setups.count else { return }
                let index = next
                let setup = setups[index]
                next += 1
                let endpoint = endpoints[setup.target]!
                let binding = bindings[setup.target]!
                group.addTask {
                    await register(index, setup, endpoint: endpoint, binding: binding, ids: ids, instance: instance,
                                   clock: clock)
                }
            }
            for _ in 0..<min(concurrency, setups.count) { launch() }
            for await outcome in group {
                outcomes.append(outcome)
                emit(outcome)
                launch()
            }
        }
        let wall = clock.now - start
        await unregister(outcomes, setups: setups, endpoints: endpoints)
        for endpoint in endpoints.values { await endpoint.stop() }
        context.output.emit("load_summary", summary(outcomes, wall: wall))
        if outcomes.allSatisfy({ $0.exit == .success }) { return .success }
        return outcomes.contains { $0.exit == .network } ? .network : .failure
    }

    private func emit(_ outcome: LineOutcome) { context.output.emit("line_result", fields(outcome)) }

    private func fields(_ outcome: LineOutcome) -> JSONObject {
        var fields: JSONObject = ["aor": .string(outcome.aor), "registered": .bool(outcome.exit == .success)]
        fields["ms"] = outcome.latency.map { .double(Double($0.microseconds) / 1000) } ?? .null
        if let reason = outcome.reason { fields["reason"] = .string(reason) }
        return fields
    }

    /// Every line to one UDP server: one socket, one ``RegistrationLoad`` stepped by one loop.
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
        let loop = UDPLoadLoop(engine: RegistrationLoad(clients: clients, binding: binding, reliable: false,
                                                        concurrency: concurrency),
                               socket: socket)
        let aors = setups.map { $0.aor.description }
        let collected = Mutex<[LineOutcome]>([])
        let started = ContinuousClock.now
        await loop.run(.register) { [self] batch in
            // One write for the lines finished in one turn of the loop.
            var text = ""
            var outcomes: [LineOutcome] = []
            for finished in batch {
                let outcome: LineOutcome
                switch finished.result {
                case .registered, .unregistered:
                    outcome = LineOutcome(index: finished.index, aor: aors[finished.index],
                                          latency: finished.latency, exit: .success)
                case .failed(let failure):
                    outcome = LineOutcome(index: finished.index, aor: aors[finished.index],
                                          exit: RegisterRun.exitCode(for: failure), reason: failure.description)
                }
                outcomes.append(outcome)
                text += context.output.render("line_result", fields(outcome))
            }
            context.output.write(text)
            collected.withLock { $0 += outcomes }
        }
        let wall = ContinuousClock.now - started
        await loop.run(.unregister) { _ in }
        let outcomes = collected.withLock { $0 }
        context.output.emit("load_summary", summary(outcomes, wall: wall))
        if outcomes.allSatisfy({ $0.exit == .success }) { return .success }
        return outcomes.contains { $0.exit == .network } ? .network : .failure
    }

    /// A line's registration; every line of the run shares `instance` (one device).
    private func client(for setup: LineSetup, ids: SystemIdentifierSource, instance: String) -> RegistrationClient {
        var settings = setup.registrationSettings(expires: options.expires, keep: false, ids: ids)
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
        try InputReader.forEachLine(path == "-" ? nil : path, maxLine: .loadLine, maxLines: Self.maxLines) {
            row, number throws(ToolError) in
            var bytes = row
            while let first = bytes.first, first == 0x20 || first == 0x09 || first == 0x0D { bytes.removeFirst() }
            while let last = bytes.last, last == 0x20 || last == 0x09 || last == 0x0D { bytes.removeLast() }
            guard !bytes.isEmpty else { return }
            do {
                lines.append(try Line(json: bytes))
            } catch {
                throw ToolError(.usage, "\(path):\(number): \(error)")
            }
        }
        guard !lines.isEmpty else { throw ToolError(.usage, "\(path): no lines") }
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

    /// Phase 2: removes every binding, `concurrency` at a time.
    private func unregister(_ outcomes: [LineOutcome], setups: [LineSetup], endpoints: [FlowTarget: SIPEndpoint]) async {
        let registered = outcomes.filter { $0.client != nil }
        await withTaskGroup(of: Void.self) { group in
            var next = 0
            func launch() {
                guard next < registered.count else { return }
                var client = registered[next].client!
                let endpoint = endpoints[setups[registered[next].index].target]!
                next += 1
                group.addTask {
                    for case .send(let request) in client.stop() { _ = await endpoint.finalResponse(to: request) }
                }
            }
            for _ in 0..<min(concurrency, registered.count) { launch() }
            for await _ in group { launch() }
        }
    }

    private func summary(_ outcomes: [LineOutcome], wall: Duration) -> JSONObject {
        let latencies = outcomes.compactMap(\.latency).map { Double($0.microseconds) / 1000 }.sorted()
        func percentile(_ p: Double) -> JSONValue {
            guard !latencies.isEmpty else { return .null }
            let index = min(latencies.count - 1, Int((p / 100 * Double(latencies.count)).rounded(.up)) - 1)
            return .double(latencies[max(0, index)])
        }
        let seconds = Double(wall.microseconds) / 1_000_000
        let ok = outcomes.filter { $0.exit == .success }.count
        return [
            "lines": .int(outcomes.count), "registered": .int(ok), "failed": .int(outcomes.count - ok),
            "concurrency": .int(concurrency), "wall_ms": .double(seconds * 1000),
            "rate_per_s": .double(seconds > 0 ? Double(ok) / seconds : 0),
            "latency_ms": .object([
                "p50": percentile(50), "p90": percentile(90), "p99": percentile(99),
                "max": latencies.last.map(JSONValue.double) ?? .null,
            ]),
        ]
    }
}

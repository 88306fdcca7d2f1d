import AstraJSON
import SIPCore
import SIPDialog
import LineRunner
import SIPTransport
import Synchronization
import ToolSupport

/// The load file read line by line (at most ``maxLines``) and each line registered and unregistered
/// over its shared endpoint (RFC 3261 §10.2.1, §10.2.2).
extension LoadRun {
    struct LoadError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// Lines in one load file (docs/man/astra-register.md): each costs a registration machine.
    static let maxLines = 100_000

    /// The file's lines, read line by line with a per-line limit (InputReader.Limit.loadLine).
    func readLines() throws(ToolError) -> [Line] {
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
    func register(_ index: Int, _ setup: LineSetup, endpoint: SIPEndpoint, binding: LocalBinding,
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
    func unregister(_ outcomes: [LineOutcome], setups: [LineSetup], endpoints: [FlowTarget: SIPEndpoint],
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
}

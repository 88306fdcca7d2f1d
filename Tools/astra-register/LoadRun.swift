import SIPCore
import SIPDialog
import SIPTransport
import ToolSupport

/// Load mode: register every line of a JSON Lines file, `concurrency` at a time, each on its own
/// flow; report each line and a summary with the rate and latency percentiles.
struct LoadRun {
    let path: String
    let concurrency: Int
    let options: RegisterRun.Options
    let context: ToolContext

    struct LineOutcome: Sendable {
        var aor: String
        var latency: Duration?
        var exit: ExitCode
        var reason: String?
    }

    func run() async -> ExitCode {
        let lines: [Line]
        do {
            lines = try readLines()
        } catch {
            context.diagnostics.error(error.message)
            return error.exitCode
        }
        let clock = ContinuousClock()
        let start = clock.now
        var outcomes: [LineOutcome] = []
        await withTaskGroup(of: LineOutcome.self) { group in
            var next = 0
            func launch() {
                guard next < lines.count else { return }
                let line = lines[next]
                next += 1
                group.addTask { await register(line, clock: clock) }
            }
            for _ in 0..<min(concurrency, lines.count) { launch() }
            for await outcome in group {
                outcomes.append(outcome)
                var fields: JSONObject = ["aor": .string(outcome.aor), "registered": .bool(outcome.exit == .success)]
                fields["ms"] = outcome.latency.map { .double(Double($0.microseconds) / 1000) } ?? .null
                if let reason = outcome.reason { fields["reason"] = .string(reason) }
                context.output.emit("line_result", fields)
                launch()
            }
        }
        let wall = clock.now - start
        context.output.emit("load_summary", summary(outcomes, wall: wall))
        if outcomes.allSatisfy({ $0.exit == .success }) { return .success }
        return outcomes.contains { $0.exit == .network } ? .network : .failure
    }

    private func readLines() throws(ToolError) -> [Line] {
        let text = try InputReader.readText(path == "-" ? nil : path)
        var lines: [Line] = []
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = raw.trimmingCharacters(in: " \t\r")
            guard !trimmed.isEmpty else { continue }
            do {
                lines.append(try Line(json: String(trimmed)))
            } catch {
                throw ToolError(.usage, "\(path):\(number + 1): \(error)")
            }
        }
        guard !lines.isEmpty else { throw ToolError(.usage, "\(path): no lines") }
        return lines
    }

    /// One line: connect, register (digest), stop at the first final outcome, unregister.
    private func register(_ line: Line, clock: ContinuousClock) async -> LineOutcome {
        let setup: LineSetup
        do {
            setup = try LineSetup(line: line)
        } catch {
            return LineOutcome(aor: "sip:\(line.user)@\(line.domain)", exit: .usage, reason: error.message)
        }
        let ids = SystemIdentifierSource()
        var connection = setup.connectionOptions(sipTrace: options.sipTrace, verbosity: options.verbosity,
                                                 diagnostics: context.diagnostics)
        connection.keepAlive = nil
        let flow = SIPFlow(target: setup.target, options: connection, clock: clock, ids: ids)
        let endpoint = SIPEndpoint(channel: flow, clock: clock, ids: ids)
        let client = RegistrationClient(
            aor: setup.aor, registrar: setup.registrar, credentials: setup.credentials,
            settings: setup.registrationSettings(expires: options.expires, keep: false, ids: ids), ids: ids)
        let registration = LineRegistration(endpoint: endpoint, client: client, clock: clock)
        let start = clock.now
        let timeout = Task {
            try? await clock.sleep(for: options.timeout)
            if !Task.isCancelled { await registration.stop(within: .zero) }
        }
        var outcome = LineOutcome(aor: setup.aor.description, exit: .network, reason: "timeout")
        let events = registration.events
        await registration.start()
        loop: for await event in events {
            switch event {
            case .registration(.registered):
                outcome = LineOutcome(aor: setup.aor.description, latency: clock.now - start, exit: .success)
                break loop
            case .registration(.failed(let failure)):
                outcome = LineOutcome(aor: setup.aor.description, exit: RegisterRun.exitCode(for: failure),
                                      reason: failure.description)
                break loop
            case .flowDown(let reason):
                outcome = LineOutcome(aor: setup.aor.description, exit: .network, reason: reason)
                break loop
            default:
                continue
            }
        }
        timeout.cancel()
        await registration.stop(within: .seconds(2))
        return outcome
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

extension StringProtocol {
    func trimmingCharacters(in set: String) -> String {
        let chars = Set(set)
        var s = Substring(self)
        while let f = s.first, chars.contains(f) { s = s.dropFirst() }
        while let l = s.last, chars.contains(l) { s = s.dropLast() }
        return String(s)
    }
}

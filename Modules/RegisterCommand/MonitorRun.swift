import AstraJSON
import HTTPLite
import LineRunner
import Metrics
import SIPCore
import SIPTransport
import ToolSupport

/// `astra-register --monitor LINES`: every line of the file kept registered and pinged, its
/// health served as Prometheus metrics on `GET /metrics` (docs/monitoring.md). Runs until
/// SIGINT/SIGTERM (then every line unregisters, exit 0); SIGHUP re-reads the file and starts,
/// stops or restarts only the lines that changed.
struct MonitorRun {
    let path: String
    let listen: (host: String, port: UInt16)
    let settings: LineHealth.Settings
    let context: ToolContext
    /// `--insecure`: the lines' `tls_verify: false` is allowed (refused without it, as everywhere).
    var insecure = false
    /// Every line's ping timers, on one sleeping task.
    let timers = LineTimers(clock: ContinuousClock())

    /// Lines start this far apart, so a large file does not hit the server as one burst of
    /// connections and TLS handshakes.
    static let startSpacing: Duration = .milliseconds(10)

    /// `HOST:PORT` of `--metrics` (IPv4; port 0 = the kernel's choice).
    static func parseListen(_ text: String) throws(ToolError) -> (host: String, port: UInt16) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let port = UInt16(parts[1]), SocketAddress(ip: String(parts[0]), port: port).map({ !$0.isIPv6 }) == true else {
            throw ToolError(.usage, "--metrics: '\(text)' is not IPv4-HOST:PORT (e.g. 127.0.0.1:9779)")
        }
        return (String(parts[0]), port)
    }

    func run() async -> ExitCode {
        let lines: MonitorLines
        do { lines = try MonitorLines.read(path) } catch { return fail(error) }
        var setups: [String: (MonitorLines.Entry, LineSetup)] = [:]
        for entry in lines.entries {
            do { setups[entry.name] = (entry, try LineSetup(line: entry.line, insecure: insecure)) } catch { return fail(error) }
        }
        let store = MetricsStore(MonitorMetrics.families())
        let server: HTTPServer
        do {
            server = try HTTPServer(host: listen.host, port: listen.port) { request in
                MonitorRun.answer(request, store)
            }
        } catch {
            return fail(ToolError(.network, "--metrics: cannot listen on \(listen.host):\(listen.port): \(error)"))
        }
        await server.start()
        let signals = await SignalEvents.stream([.interrupt, .terminate, .hangup])
        context.output.emit(
            "monitoring",
            ["lines": .int(Int64(lines.entries.count)), "metrics": .string("\(listen.host):\(server.port)")])
        var running: [String: (entry: MonitorLines.Entry, monitor: LineMonitor)] = [:]
        await start(lines.entries.map { setups[$0.name]! }, into: &running, store: store)
        for await signal in signals {
            guard signal == .hangup else { break }
            await reload(&running, store: store)
        }
        await withTaskGroup(of: Void.self) { group in
            for (_, line) in running { group.addTask { await line.monitor.stop() } }
        }
        await server.stop()
        context.output.emit("stopped", ["lines": .int(Int64(running.count))])
        return .success
    }

    private func fail(_ error: ToolError) -> ExitCode {
        context.diagnostics.error(error.message)
        return error.exitCode
    }

    /// The scrape: `/metrics` in the format the `Accept` header asks for; `/` names it.
    static func answer(_ request: HTTPRequest, _ store: MetricsStore) -> HTTPResponse {
        guard request.method == "GET" || request.method == "HEAD" else {
            return HTTPResponse(status: 405, headers: [HTTPHeader("Allow", "GET, HEAD")])
        }
        switch request.path {
        case "/metrics":
            let format = ExpositionFormat.negotiate(accept: request.header("accept"))
            let body = request.method == "HEAD" ? [] : store.renderBytes(format)
            return HTTPResponse(status: 200, headers: [HTTPHeader("Content-Type", format.contentType)], body: body)
        case "/":
            return .text(200, "astra-register --monitor: metrics at /metrics")
        default:
            return .text(404, "no such page: metrics are at /metrics")
        }
    }

    private func start(
        _ lines: [(MonitorLines.Entry, LineSetup)], into running: inout [String: (entry: MonitorLines.Entry, monitor: LineMonitor)],
        store: MetricsStore
    ) async {
        let output = context.output
        let timers = self.timers
        for (index, (entry, setup)) in lines.enumerated() {
            if index > 0 { try? await Task.sleep(for: Self.startSpacing) }
            let monitor = LineMonitor(
                name: entry.name, setup: setup, settings: settings, metrics: store, diagnostics: context.diagnostics,
                timers: timers
            ) { name, up, registered in
                output.emit("line_state", ["line": .string(name), "up": .bool(up), "registered": .bool(registered)])
            }
            running[entry.name] = (entry, monitor)
            await monitor.start()
        }
        let count = running.count
        store.update { set in set.update(MonitorMetrics.lines) { $0.set([:], Double(count)) } }
    }

    /// SIGHUP: the file again; a file that does not read keeps every line as it is.
    private func reload(_ running: inout [String: (entry: MonitorLines.Entry, monitor: LineMonitor)], store: MetricsStore) async {
        let lines: MonitorLines
        var fresh: [(MonitorLines.Entry, LineSetup)] = []
        do {
            lines = try MonitorLines.read(path)
            for entry in lines.entries where running[entry.name]?.entry != entry {
                fresh.append((entry, try LineSetup(line: entry.line, insecure: insecure)))
            }
        } catch {
            context.diagnostics.error("reload: \(error.message) (the lines stay as they were)")
            context.output.emit("reload_failed", ["reason": .string(error.message)])
            return
        }
        let wanted = Dictionary(uniqueKeysWithValues: lines.entries.map { ($0.name, $0) })
        let leaving = running.filter { wanted[$0.key] != $0.value.entry }
        for (name, line) in leaving {
            await line.monitor.stop()
            running[name] = nil
        }
        let kept = running.count
        await start(fresh, into: &running, store: store)
        context.output.emit(
            "reloaded",
            [
                "lines": .int(Int64(running.count)), "kept": .int(Int64(kept)), "started": .int(Int64(fresh.count)),
                "stopped": .int(Int64(leaving.count)),
            ])
    }
}

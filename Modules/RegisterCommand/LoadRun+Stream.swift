import AstraJSON
import Glibc
import LineRunner
import SIPCore
import SIPDialog
import SIPTransport
import Synchronization
import ToolSupport

/// Connection-oriented load (`--storm`, `--fleet`, decision D41): every line on its own
/// connection, stepped by one ``StreamLoadLoop``.
extension LoadRun {
    enum StreamMode: String, Sendable {
        /// Connect, register, unregister, close — per line.
        case storm
        /// Connect, register and hold (refresh, keep-alive, reconnect) for `--duration`.
        case fleet
    }

    /// Line timeout for one connection's setup and each REGISTER phase; the fleet's hold.
    func runStream(_ setups: [LineSetup], mode: StreamMode, ids: SystemIdentifierSource) async -> ExitCode {
        if let bad = setups.first(where: { !$0.transport.isReliable }) {
            context.diagnostics.error("--\(mode.rawValue) needs TCP, TLS, WS or WSS lines; \(bad.aor) is over UDP")
            return .usage
        }
        if mode == .fleet && options.duration == nil {
            context.diagnostics.error("--fleet needs --duration (how long the lines are held)")
            return .usage
        }
        Self.raiseDescriptorLimit(lines: setups.count, diagnostics: context.diagnostics)
        // One resolved address and one TLS context per server: the trust store loads once.
        var targets: [LoadConnection.Target] = []
        var targetIndex: [String: Int] = [:]
        var contexts: [TLSOptions: TLSClientContext] = [:]
        var lineTargets: [Int] = []
        lineTargets.reserveCapacity(setups.count)
        for setup in setups {
            let options = setup.connectionOptions(trace: nil, verbosity: 0, diagnostics: context.diagnostics)
            let key = "\(setup.target)|\(options.webSocketPath)|\(options.tls.caFile ?? "")|\(options.tls.verifyPeer)"
                + "|\(options.tls.serverName ?? "")"
            if let index = targetIndex[key] {
                lineTargets.append(index)
                continue
            }
            let port = setup.target.port ?? setup.transport.defaultPort
            do throws(TransportError) {
                let address = try Resolver.resolveNow(host: setup.target.host, port: port,
                                                      transport: setup.transport)[0]
                var tls: TLSClientContext?
                if setup.transport.isSecure {
                    if let existing = contexts[options.tls] {
                        tls = existing
                    } else {
                        let made = try TLSClientContext(options: options.tls, transport: setup.transport,
                                                        peer: address.description, releaseBuffers: true)
                        contexts[options.tls] = made
                        tls = made
                    }
                }
                targets.append(LoadConnection.Target(
                    address: address, transport: setup.transport, host: options.tls.serverName ?? setup.target.host,
                    port: port, path: options.webSocketPath, tls: tls))
            } catch {
                context.diagnostics.error("\(setup.target): \(error.detail)")
                return error.code == .invalidArgument ? .usage : .network
            }
            targetIndex[key] = targets.count - 1
            lineTargets.append(targets.count - 1)
        }
        // Each line is a phone: its own +sip.instance (RFC 5626 §4.1), so the registrar keeps
        // one binding per line and connection.
        let clients = setups.map { client(for: $0, ids: ids, instance: "urn:uuid:" + ids.uuidString()) }
        let binding = LocalBinding(transport: setups[0].transport.sipTransportProtocol, host: "invalid", port: nil)
        let engine = RegistrationLoad(clients: clients, binding: binding, reliable: true, concurrency: clients.count,
                                      lineTimeout: options.timeout, paced: true)
        var settings = controlSettings(lines: setups.count)
        settings.duration = nil  // the fleet's --duration is its hold, not a cycling run
        let loopMode: StreamLoadLoop.Mode
        switch mode {
        case .storm: loopMode = .storm
        case .fleet: loopMode = .fleet(hold: options.duration ?? .zero, keepAlive: options.keepAlive)
        }
        let loop = StreamLoadLoop(engine: engine, control: settings, mode: loopMode, targets: targets,
                                  lineTargets: lineTargets, setupTimeout: options.timeout, ids: ids)
        let signals = Task { for await _ in await SignalEvents.stream() { loop.requestStop(.signal) } }
        defer { signals.cancel() }
        let aors = setups.map { $0.aor.description }
        let collected = Mutex<[LineOutcome]>([])
        let progress = LoadProgress(output: context.output)
        let cpuBefore = Self.cpuTime()
        do {
            try await loop.run(progress: { progress.report($0) }) { [self] reports in
                var text = ""
                var outcomes: [LineOutcome] = []
                for report in reports {
                    switch report {
                    case .finished(let line, let ok, let latency, let handshake, let cause, let reason):
                        var outcome = LineOutcome(index: line, aor: aors[line], latency: ok ? latency : nil,
                                                  exit: ok ? .success : (cause == .sip ? .failure : .network),
                                                  reason: reason)
                        outcome.handshake = handshake
                        outcome.cause = cause?.rawValue
                        outcomes.append(outcome)
                        text += render(outcome)
                    case .dropped(let line, let cause, let reason):
                        let fields: JSONObject = [
                            "aor": .string(aors[line]), "cause": .string(cause.rawValue), "reason": .string(reason),
                        ]
                        text += context.output.render(
                            "line_dropped", fields, text: "↯ \(aors[line]) dropped (\(cause.rawValue)): \(reason)")
                    case .abandoned(let line):
                        var outcome = LineOutcome(index: line, aor: aors[line], exit: .success, reason: Self.abandoned)
                        outcome.abandoned = true
                        outcomes.append(outcome)
                        text += render(outcome)
                    }
                }
                progress.write(text)
                collected.withLock { $0 += outcomes }
            }
        } catch {
            context.diagnostics.error(error.detail)
            return .software
        }
        let cpu = Self.cpuTime() - cpuBefore
        let control = loop.control
        progress.finish(control.progress(now: loop.wallEnd ?? loop.now))
        if loop.stopRequests >= 2 { context.diagnostics.warning("second signal: bindings are left to expire") }
        // The storm's wall is the whole run; the fleet's is its ramp (every line's first outcome).
        let wall = loop.wallEnd ?? loop.now
        var extra = loop.stats.fields(fleet: mode == .fleet, wallSeconds: Self.seconds(wall), lines: setups.count)
        extra["mode"] = .string(mode.rawValue)
        extra["transport"] = .string(setups[0].transport.rawValue)
        if let hold = loop.holdStarted, mode == .fleet {
            extra["hold_ms"] = .double(StreamLoadStats.rounded(StreamLoadLoop.ms(loop.now - hold)))
        }
        extra["cpu_ms"] = .double(StreamLoadStats.rounded(cpu * 1000))
        if loop.stats.registered > 0 {
            extra["cpu_ms_per_registration"] = .double(StreamLoadStats.rounded(cpu * 1000 / Double(loop.stats.registered)))
        }
        if let shard = options.shard { extra["shard"] = .string(shard.description) }
        return finish(collected.withLock { $0 }, control: control, wall: wall, extra: extra)
    }

    /// Raises the soft `RLIMIT_NOFILE` to the hard limit when the lines need more descriptors
    /// than the soft one allows (one per line, plus the tool's own); warns when even the hard
    /// limit is short.
    static func raiseDescriptorLimit(lines: Int, diagnostics: Diagnostics) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
        let needed = rlim_t(lines + 64)
        if limit.rlim_cur < needed && limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = min(limit.rlim_max, max(needed, limit.rlim_cur))
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        if limit.rlim_cur < needed {
            diagnostics.warning(
                "\(lines) lines need about \(needed) file descriptors; the limit is \(limit.rlim_cur) (ulimit -Hn)")
        }
    }

    /// User + system CPU of this process so far, seconds (getrusage).
    static func cpuTime() -> Double { LoadReport.cpuSeconds() }

    static func seconds(_ d: Duration) -> Double { StreamLoadLoop.ms(d) / 1000 }
}

import Glibc
import SIPCore
import SIPDialog
import SIPTransport
import Synchronization

/// The IO shell of connection-oriented load (`--storm`, `--fleet`; decision D41): one thread,
/// one `epoll` set, one ``LoadConnection`` per line, one ``RegistrationLoad`` stepping every
/// line's registration. Like ``UDPLoadLoop``, nothing here is a task, actor or continuation per
/// message; unlike it, every line has its own TCP connection, TLS handshake and WebSocket
/// upgrade, as every phone of a fleet has.
///
/// - *storm*: each admitted line connects, registers, unregisters and closes; the line ends
///   then (``LoadRunControl`` paces the starts: `--concurrency`, `--rate`, stops).
/// - *fleet*: each admitted line connects and registers, then is held: the engine refreshes its
///   binding when the registration asks (RFC 3261 §10.2.4), the loop sends keep-alives (RFC 5626
///   §4.4.1: CRLF pings on TCP/TLS, WebSocket pings on WS/WSS, every `keepAlive` × 80–100 %,
///   a pong due within 10 s) and reconnects and re-registers a line whose connection dropped
///   (RFC 5626 §4.5 back-off, from 1 s). Once every line had its first outcome the hold runs
///   for `hold`; then every held line unregisters and closes.
///
/// Owned by one thread at a time (built by the caller, run on its own thread, read after);
/// ``requestStop(_:)`` may be called from any thread.
final class StreamLoadLoop: @unchecked Sendable {
    enum Mode {
        case storm
        case fleet(hold: Duration, keepAlive: Duration?)
    }

    /// What the loop tells its owner as lines end (storm) or first register (fleet).
    enum LineReport {
        case finished(line: Int, ok: Bool, registerLatency: Duration?, handshake: Duration?,
                      cause: LoadFailureCause?, reason: String?)
        case dropped(line: Int, cause: LoadFailureCause, reason: String)
        case abandoned(line: Int)
    }

    private enum LinePhase: Equatable {
        case waiting, connecting, registering, held, reconnectWait, unregistering, done
    }

    private struct LineState {
        var phase: LinePhase = .waiting
        var everRegistered = false
        /// The line's first outcome was reported to the run control.
        var counted = false
        var failures = 0
        var stamps: [UInt32] = [0, 0, 0, 0]
    }

    /// Connection-level timers (the registration's own timers are the engine's).
    private enum TimerKind: Int {
        /// Connect + TLS + upgrade must finish within `--timeout`.
        case setup = 0
        case keepAlive = 1
        /// RFC 5626 §4.4.1: no pong within 10 s → the flow failed.
        case pong = 2
        case reconnect = 3
    }

    private struct TimerEntry: Sendable {
        var line: Int32
        var kind: UInt8
        var stamp: UInt32
    }

    private(set) var engine: RegistrationLoad
    private(set) var control: LoadRunControl
    private(set) var stats = StreamLoadStats()
    private(set) var wallEnd: Duration?
    private(set) var holdStarted: Duration?
    private let mode: Mode
    private let targets: [LoadConnection.Target]
    private let lineTargets: [Int]
    private let setupTimeout: Duration
    private let concurrency: Int
    private let ids: any IdentifierSource
    private var connections: [LoadConnection?]
    private var lines: [LineState]
    private var timers = DeadlineHeap<TimerEntry>()
    private var nextLine = 0
    private var unregisterQueue: [Int] = []
    private var unregisterNext = 0
    private var unregisterRunning = 0
    private var finishing = false
    private let start: ContinuousClock.Instant
    private let stopRequest = Mutex<(reason: LoadRunControl.StopReason?, count: Int)>((nil, 0))
    private let answerSettings = EndpointSettings()

    init(engine: RegistrationLoad, control: LoadRunControl.Settings, mode: Mode, targets: [LoadConnection.Target],
         lineTargets: [Int], setupTimeout: Duration, ids: any IdentifierSource) {
        var engine = engine
        if case .fleet = mode { engine.holdsBindings = true }
        self.engine = engine
        self.start = ContinuousClock.now
        self.control = LoadRunControl(settings: control, now: .zero)
        self.mode = mode
        self.targets = targets
        self.lineTargets = lineTargets
        self.setupTimeout = setupTimeout
        self.concurrency = control.concurrency
        self.ids = ids
        connections = Array(repeating: nil, count: lineTargets.count)
        lines = Array(repeating: LineState(), count: lineTargets.count)
    }

    var now: Duration { ContinuousClock.now - start }

    private var isFleet: Bool { if case .fleet = mode { true } else { false } }

    func requestStop(_ reason: LoadRunControl.StopReason) {
        stopRequest.withLock {
            $0.reason = reason
            $0.count += 1
        }
    }

    var stopRequests: Int { stopRequest.withLock { $0.count } }

    /// Runs the whole run on a dedicated thread; `report` is called there for each line report,
    /// `progress` with each progress report.
    func run(progress: @escaping @Sendable (LoadRunControl.Progress) -> Void,
             report: @escaping @Sendable ([LineReport]) -> Void) async throws(TransportError) {
        poll = try EventPoll(capacity: 1024)
        await DedicatedThread.run { [self] in loop(poll!, progress: progress, report: report) }
    }

    // MARK: - The loop

    private var reports: [LineReport] = []
    /// Made by ``run(progress:report:)``, then used on the loop's thread only.
    private var poll: EventPoll?

    private func loop(_ poll: EventPoll, progress: (LoadRunControl.Progress) -> Void,
                      report: ([LineReport]) -> Void) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 16)
        defer { buffer.deallocate() }
        var stopsSeen = 0
        pace(poll)
        while !isDone {
            var wait: Duration = .milliseconds(100)
            if let next = engine.nextDeadline() { wait = min(wait, max(.zero, next - now)) }
            if let next = nextTimer() { wait = min(wait, max(.zero, next - now)) }
            wait = min(wait, max(.zero, control.nextDeadline(now: now) - now))
            for ready in poll.wait(timeout: wait) {
                let line = Int(ready.token)
                guard let connection = connections[line] else { continue }
                let at = now
                var events: [LoadConnection.Event] = []
                if ready.writable || (ready.hangup && connection.stage == .connecting) {
                    events += connection.writable(now: at)
                }
                if ready.readable || ready.hangup { events += connection.readable(buffer: buffer, now: at) }
                handle(events, line: line, connection: connection, now: at)
                updateInterest(poll, line: line)
            }
            let at = now
            engine.fireTimers(now: at)
            fireTimers(now: at, poll: poll)
            flush(poll)
            let request = stopRequest.withLock { $0 }
            if request.count > stopsSeen {
                stopsSeen = request.count
                stop(request.reason ?? .signal, count: request.count, poll: poll)
            }
            if let p = control.tick(now: now) { progress(p) }
            pace(poll)
            flush(poll)
            if !reports.isEmpty {
                report(reports)
                reports.removeAll(keepingCapacity: true)
            }
        }
        for line in connections.indices { connections[line]?.close(); connections[line] = nil }
        if !reports.isEmpty { report(reports) }
    }

    private var isDone: Bool {
        guard control.isDone else { return false }
        if isFleet { return finishing && unregisterRunning == 0 && unregisterNext >= unregisterQueue.count }
        return true
    }

    /// Starts what may start: new lines (run control), the end of the hold, unregistrations.
    private func pace(_ poll: EventPoll) {
        let at = now
        if control.abandonsRunning {
            abandonAll()
        } else {
            while control.admit(now: at) {
                guard nextLine < lines.count else {
                    control.unstart()
                    break
                }
                let line = nextLine
                nextLine += 1
                connect(line, poll: poll, now: at)
            }
        }
        if control.stopReason == nil && nextLine >= lines.count && control.settings.duration == nil
            && control.running == 0 {
            control.stop(.completed)
        }
        guard isFleet, control.isDone else { return }
        if holdStarted == nil {
            holdStarted = at
            wallEnd = at
        }
        if !finishing, case .fleet(let hold, _) = mode, at - holdStarted! >= hold { beginUnregistering(at) }
        if finishing { unregisterMore(at) }
    }

    // MARK: - Lines

    private func connect(_ line: Int, poll: EventPoll, now at: Duration) {
        lines[line].phase = .connecting
        let connection: LoadConnection
        do {
            connection = try LoadConnection(line: line, target: targets[lineTargets[line]], ids: ids, now: at)
        } catch {
            lineFailed(line, cause: error.code == .connectFailed ? .connect : .tls, reason: error.detail, now: at)
            return
        }
        stats.connections += 1
        connections[line] = connection
        guard poll.add(connection.fd, token: UInt64(line), writable: connection.wantsWrite) else {
            connection.close()
            connections[line] = nil
            lineFailed(line, cause: .connect, reason: "epoll_ctl(): \(String(cString: strerror(errno)))", now: at)
            return
        }
        schedule(.setup, line: line, at: at + setupTimeout)
    }

    private func handle(_ events: [LoadConnection.Event], line: Int, connection: LoadConnection, now at: Duration) {
        for event in events {
            switch event {
            case .ready(let binding):
                cancel(.setup, line: line)
                if let connected = connection.connectedAt {
                    stats.connect.append(Self.ms(connected - connection.opened))
                    if let secured = connection.securedAt {
                        if connection.transport.isSecure { stats.tls.append(Self.ms(secured - connected)) }
                        if connection.transport.isWebSocket { stats.upgrade.append(Self.ms(at - secured)) }
                    }
                }
                stats.handshake.append(Self.ms(at - connection.opened))
                handshakes[line] = at - connection.opened
                engine.bind(line, to: binding)
                lines[line].phase = .registering
                if finishing || !engine.startLine(line, now: at) {
                    close(line)
                    lines[line].phase = .done
                    lineEnded(line, ok: false, cause: .sip, reason: "the registration could not start", now: at)
                }
            case .message(let message):
                switch message {
                case .response(let response): engine.receive(response, now: at)
                case .request(let request): answer(request, on: connection)
                }
            case .pong:
                stats.pongs += 1
                cancel(.pong, line: line)
            case .failed(let cause, let reason):
                connections[line] = nil
                connectionLost(line, cause: cause, reason: reason, now: at)
            }
        }
    }

    /// A registration-only line answers what the server sends (OPTIONS keep-alives, D32).
    private func answer(_ request: SIPRequest, on connection: LoadConnection) {
        guard request.method != .ack else { return }
        let hasTag = ((try? request.headers.to())??.tag) != nil
        var response: SIPResponse
        if request.method == .cancel {
            // §9.2: 200 to the CANCEL; no INVITE is ever pending on a registration-only line.
            response = SIPResponse(to: request, statusCode: 200, toTag: hasTag ? nil : ids.tag())
        } else {
            let answer = RegistrationOnlyAnswer.answer(to: request, settings: answerSettings)
            response = SIPResponse(to: request, statusCode: answer.status, reasonPhrase: answer.reason,
                                   toTag: hasTag ? nil : ids.tag())
            for header in answer.headers { response.headers.add(header.name, header.value) }
        }
        response.headers.add(.server, answerSettings.userAgent)
        handle(connection.send(response.serialized()), line: connection.line, connection: connection, now: now)
    }

    private func connectionLost(_ line: Int, cause: LoadFailureCause, reason: String, now at: Duration) {
        cancelAll(line)
        let phase = lines[line].phase
        engine.lineLost(line, now: at)
        switch phase {
        case .connecting:
            lineFailed(line, cause: cause, reason: reason, now: at)
        case .registering where !lines[line].everRegistered:
            lineFailed(line, cause: cause, reason: reason, now: at)
        case .registering, .held:
            // A fleet line that was up: a drop; reconnect and re-register (RFC 5626 §4.4.1).
            if phase == .held { heldCount -= 1 }
            stats.dropped(cause)
            reports.append(.dropped(line: line, cause: cause, reason: reason))
            scheduleReconnect(line, now: at)
        case .unregistering:
            lines[line].phase = .done
            if isFleet {
                unregistrationEnded(line, ok: false)
            } else {
                // Registered; the unregistration was cut short (the binding expires by itself).
                lineEnded(line, ok: true, registerLatency: registerLatencies.removeValue(forKey: line), cause: nil,
                          reason: nil, now: at)
            }
        case .waiting, .reconnectWait, .done:
            break
        }
    }

    /// The line's attempt failed before it was ever registered.
    private func lineFailed(_ line: Int, cause: LoadFailureCause, reason: String, now at: Duration) {
        close(line)
        if isFleet && !finishing && control.stopReason != .signal && control.stopReason != .runTimeout {
            // A phone keeps trying; the failure still counts once.
            if !lines[line].counted { lineEnded(line, ok: false, cause: cause, reason: reason, now: at) }
            scheduleReconnect(line, now: at)
            return
        }
        lineEnded(line, ok: false, cause: cause, reason: reason, now: at)
    }

    /// The line's first outcome (storm: its end) goes to the run control and the report.
    private func lineEnded(_ line: Int, ok: Bool, registerLatency: Duration? = nil, cause: LoadFailureCause?,
                           reason: String?, now at: Duration) {
        if !isFleet { lines[line].phase = .done }
        guard !lines[line].counted else { return }
        lines[line].counted = true
        if let cause { stats.failed(cause) }
        control.finished(ok: ok, latency: registerLatency)
        reports.append(.finished(line: line, ok: ok, registerLatency: registerLatency,
                                 handshake: handshakes[line], cause: cause, reason: reason))
    }

    private func scheduleReconnect(_ line: Int, now at: Duration) {
        guard isFleet, !finishing else {
            lines[line].phase = .done
            return
        }
        lines[line].phase = .reconnectWait
        lines[line].failures += 1
        // RFC 5626 §4.5: min(max, base × 2^failures), jittered to 50–100 %; base 1 s, max 30 s
        // here (a load run measures recovery, it does not wait out a real phone's 30 s base).
        let ceiling = min(30.0, pow(2.0, Double(min(lines[line].failures - 1, 5))))
        let jitter = 0.5 + 0.5 * Double(ids.nextUInt64() % 1000) / 1000
        schedule(.reconnect, line: line, at: at + .seconds(ceiling * jitter))
    }

    private func close(_ line: Int) {
        cancelAll(line)
        connections[line]?.close()
        connections[line] = nil
    }

    // MARK: - The engine's outputs

    private func flush(_ poll: EventPoll) {
        while engine.hasOutput {
            for (line, bytes) in engine.takeOutgoingByLine() {
                guard let connection = connections[line] else {
                    engine.lineLost(line, now: now)
                    continue
                }
                handle(connection.send(bytes), line: line, connection: connection, now: now)
                updateInterest(poll, line: line)
            }
            for outcome in engine.takeOutcomes() { handle(outcome, now: now) }
        }
    }

    private func handle(_ outcome: RegistrationLoad.Outcome, now at: Duration) {
        let line = outcome.index
        switch outcome.result {
        case .registered:
            if let refresh = outcome.refresh {
                stats.refreshes.append(Self.ms(outcome.latency))
                stats.refreshLateness.append(Self.ms(refresh.lateness))
                // On time: sent within 1 s of when it was due and answered before expiry.
                if !refresh.beforeExpiry || refresh.lateness > .seconds(1) { stats.refreshesLate += 1 }
                return
            }
            let first = !lines[line].everRegistered
            lines[line].everRegistered = true
            lines[line].failures = 0
            if first {
                stats.registered += 1
                stats.register.append(Self.ms(outcome.latency))
            } else {
                stats.reconnects += 1
            }
            if isFleet {
                if finishing {
                    unregisterQueue.append(line)
                    lines[line].phase = .held
                    return
                }
                lines[line].phase = .held
                stats.mostHeld = max(stats.mostHeld, heldCount + 1)
                heldCount += 1
                scheduleKeepAlive(line, now: at)
                if first { lineEnded(line, ok: true, registerLatency: outcome.latency, cause: nil, reason: nil, now: at) }
            } else {
                registerLatencies[line] = outcome.latency
                lines[line].phase = .unregistering
                if !engine.unregisterLine(line, now: at) {
                    close(line)
                    lineEnded(line, ok: true, registerLatency: outcome.latency, cause: nil, reason: nil, now: at)
                }
            }
        case .unregistered:
            stats.unregistered += 1
            close(line)
            if isFleet {
                lines[line].phase = .done
                unregistrationEnded(line, ok: true)
            } else {
                lineEnded(line, ok: true, registerLatency: registerLatencies.removeValue(forKey: line), cause: nil,
                          reason: nil, now: at)
            }
        case .failed(let failure):
            let cause: LoadFailureCause
            switch failure {
            case .timeout: cause = .timeout
            case .transportError: cause = .closed
            default: cause = .sip
            }
            if lines[line].phase == .unregistering {
                close(line)
                if isFleet {
                    lines[line].phase = .done
                    unregistrationEnded(line, ok: false)
                } else {
                    // Registered, but the unregistration failed: the binding expires by itself.
                    lineEnded(line, ok: true, registerLatency: registerLatencies.removeValue(forKey: line),
                              cause: nil, reason: nil, now: at)
                }
            } else if lines[line].everRegistered {
                // A held line's refresh failed: the binding will lapse; start over on a new flow.
                stats.refreshFailures += 1
                if lines[line].phase == .held { heldCount -= 1 }
                close(line)
                engine.lineLost(line, now: at)
                stats.dropped(cause)
                reports.append(.dropped(line: line, cause: cause, reason: failure.description))
                scheduleReconnect(line, now: at)
            } else {
                lineFailed(line, cause: cause, reason: failure.description, now: at)
            }
        case .abandoned:
            break
        }
    }

    private var heldCount = 0
    private lazy var handshakes: [Duration?] = Array(repeating: nil, count: lines.count)
    private var registerLatencies: [Int: Duration] = [:]

    // MARK: - Fleet: the end of the hold

    private func beginUnregistering(_ at: Duration) {
        finishing = true
        stats.heldAtEnd = lines.indices.filter { lines[$0].phase == .held }.count
        let memory = StreamLoadStats.memory()
        stats.rssBytes = memory.rss
        stats.peakRSSBytes = memory.peak
        for line in lines.indices {
            switch lines[line].phase {
            case .held: unregisterQueue.append(line)
            case .reconnectWait, .connecting, .waiting:
                close(line)
                lines[line].phase = .done
            case .registering, .unregistering, .done:
                break  // a registering line joins the queue once registered
            }
        }
    }

    /// Unregisters queued held lines, `--concurrency` at a time. A line whose refresh is still
    /// in flight waits for its final response or its timeout (RFC 3261 §10.2: no new REGISTER
    /// before then); it goes back to the queue *after* this pass, so that one pass meets each
    /// queued line once. (Re-queued inside the pass, a line in flight was met again and again
    /// within the same turn of the loop: the loop never got back to its timers or sockets, the
    /// queue grew without bound and even SIGINT was never read.)
    private func unregisterMore(_ at: Duration) {
        var waiting: [Int] = []
        while unregisterRunning < concurrency, unregisterNext < unregisterQueue.count {
            let line = unregisterQueue[unregisterNext]
            unregisterNext += 1
            // Dropped or ended since it was queued (a failed refresh, a lost flow): no binding
            // of this flow is left to remove, and no answer would ever end an unregistration.
            guard lines[line].phase == .held, connections[line] != nil else { continue }
            if engine.isInFlight(line) {
                waiting.append(line)
                continue
            }
            cancelAll(line)
            lines[line].phase = .unregistering
            if engine.unregisterLine(line, now: at) {
                unregisterRunning += 1
            } else {
                close(line)
                lines[line].phase = .done
            }
        }
        // The queue keeps only what is still to do: it never holds more than every line once.
        if !waiting.isEmpty || unregisterNext >= 1024 {
            unregisterQueue.removeFirst(unregisterNext)
            unregisterNext = 0
            unregisterQueue.append(contentsOf: waiting)
        }
    }

    private func unregistrationEnded(_ line: Int, ok: Bool) {
        unregisterRunning = max(0, unregisterRunning - 1)
    }

    // MARK: - Stops

    private func stop(_ reason: LoadRunControl.StopReason, count: Int, poll: EventPoll) {
        if isFleet {
            if count >= 2 {
                // A second signal: leave the bindings to expire.
                unregisterQueue.removeAll()
                unregisterNext = 0
                for line in lines.indices where connections[line] != nil || lines[line].phase != .done {
                    close(line)
                    engine.lineLost(line, now: now)
                    if !lines[line].counted {
                        lines[line].counted = true
                        control.finished(ok: false, latency: nil, abandoned: true)
                        reports.append(.abandoned(line: line))
                    }
                    lines[line].phase = .done
                }
                unregisterRunning = 0
                finishing = true
                control.stop(reason)
                return
            }
            control.stop(reason)
            abandonAll()
            if holdStarted == nil { holdStarted = now; wallEnd = now }
            if !finishing { beginUnregistering(now) }
            return
        }
        control.stop(reason)
    }

    /// Lines whose first outcome is still open are abandoned: their connections close.
    private func abandonAll() {
        for line in lines.indices where !lines[line].counted && lines[line].phase != .waiting {
            lines[line].counted = true
            close(line)
            engine.lineLost(line, now: now)
            lines[line].phase = .done
            control.finished(ok: false, latency: nil, abandoned: true)
            reports.append(.abandoned(line: line))
        }
    }

    // MARK: - Connection timers

    private func scheduleKeepAlive(_ line: Int, now at: Duration) {
        guard case .fleet(_, let interval?) = mode else { return }
        // RFC 5626 §4.4.1: each interval chosen at random between 80 % and 100 % of the period.
        let fraction = 0.8 + 0.2 * Double(ids.nextUInt64() % 1000) / 1000
        schedule(.keepAlive, line: line, at: at + interval * fraction)
    }

    private func schedule(_ kind: TimerKind, line: Int, at deadline: Duration) {
        lines[line].stamps[kind.rawValue] &+= 1
        timers.push(deadline, TimerEntry(line: Int32(line), kind: UInt8(kind.rawValue),
                                         stamp: lines[line].stamps[kind.rawValue]))
        // Cancelled entries pile up (every answered ping leaves its pong deadline behind).
        if timers.count > 4 * lines.count + 1024 { timers.retain(where: isLive) }
    }

    private func cancel(_ kind: TimerKind, line: Int) { lines[line].stamps[kind.rawValue] &+= 1 }

    private func cancelAll(_ line: Int) {
        for kind in 0..<4 { lines[line].stamps[kind] &+= 1 }
    }

    private func isLive(_ entry: TimerEntry) -> Bool { lines[Int(entry.line)].stamps[Int(entry.kind)] == entry.stamp }

    private func nextTimer() -> Duration? {
        while let top = timers.first {
            if isLive(top.payload) { return top.deadline }
            timers.popFirst()
        }
        return nil
    }

    private func fireTimers(now at: Duration, poll: EventPoll) {
        while let (deadline, top) = timers.first, deadline <= at {
            timers.popFirst()
            guard isLive(top) else { continue }
            let line = Int(top.line)
            switch TimerKind(rawValue: Int(top.kind))! {
            case .setup:
                connections[line]?.close()
                connections[line] = nil
                connectionLost(line, cause: lines[line].phase == .connecting ? .timeout : .timeout,
                               reason: "no connection within \(setupTimeout) (--timeout)", now: at)
            case .keepAlive:
                guard let connection = connections[line], lines[line].phase == .held else { continue }
                stats.pings += 1
                handle(connection.ping(), line: line, connection: connection, now: at)
                updateInterest(poll, line: line)
                schedule(.pong, line: line, at: at + .seconds(10))
                scheduleKeepAlive(line, now: at)
            case .pong:
                guard connections[line] != nil else { continue }
                close(line)
                connectionLost(line, cause: .keepAlive, reason: "no keep-alive answer within 10 s (RFC 5626 §4.4.1)",
                               now: at)
            case .reconnect:
                guard lines[line].phase == .reconnectWait, !finishing else { continue }
                connect(line, poll: poll, now: at)
            }
        }
    }

    private func updateInterest(_ poll: EventPoll, line: Int) {
        guard let connection = connections[line], connection.fd >= 0 else { return }
        poll.modify(connection.fd, token: UInt64(line), writable: connection.wantsWrite)
    }

    static func ms(_ d: Duration) -> Double {
        Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
    }
}

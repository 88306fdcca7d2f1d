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

    enum LinePhase: Equatable {
        case waiting, connecting, registering, held, reconnectWait, unregistering, done
    }

    struct LineState {
        var phase: LinePhase = .waiting
        var everRegistered = false
        /// The line's first outcome was reported to the run control.
        var counted = false
        var failures = 0
        var stamps: [UInt32] = [0, 0, 0, 0]
    }

    /// Connection-level timers (the registration's own timers are the engine's).
    enum TimerKind: Int {
        /// Connect + TLS + upgrade must finish within `--timeout`.
        case setup = 0
        case keepAlive = 1
        /// RFC 5626 §4.4.1: no pong within 10 s → the flow failed.
        case pong = 2
        case reconnect = 3
    }

    struct TimerEntry: Sendable {
        var line: Int32
        var kind: UInt8
        var stamp: UInt32
    }

    var engine: RegistrationLoad
    var control: LoadRunControl
    var stats = StreamLoadStats()
    var wallEnd: Duration?
    var holdStarted: Duration?
    let mode: Mode
    let targets: [LoadConnection.Target]
    let lineTargets: [Int]
    let setupTimeout: Duration
    let concurrency: Int
    let ids: any IdentifierSource
    var connections: [LoadConnection?]
    var lines: [LineState]
    var timers = DeadlineHeap<TimerEntry>()
    var nextLine = 0
    var unregisterQueue: [Int] = []
    var unregisterNext = 0
    var unregisterRunning = 0
    var finishing = false
    let start: ContinuousClock.Instant
    let stopRequest = Mutex<(reason: LoadRunControl.StopReason?, count: Int)>((nil, 0))
    let answerSettings = EndpointSettings()

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

    var isFleet: Bool { if case .fleet = mode { true } else { false } }

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

    var reports: [LineReport] = []
    /// Made by ``run(progress:report:)``, then used on the loop's thread only.
    var poll: EventPoll?

    func loop(_ poll: EventPoll, progress: (LoadRunControl.Progress) -> Void,
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

    var isDone: Bool {
        guard control.isDone else { return false }
        if isFleet { return finishing && unregisterRunning == 0 && unregisterNext >= unregisterQueue.count }
        return true
    }

    /// Starts what may start: new lines (run control), the end of the hold, unregistrations.
    func pace(_ poll: EventPoll) {
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

    // The lines (StreamLoadLoop+Lines.swift), the registration engine's outputs and the end of
    // a fleet's hold (StreamLoadLoop+Registrations.swift), stops and timers (StreamLoadLoop+Timers.swift).

    var heldCount = 0
    lazy var handshakes: [Duration?] = Array(repeating: nil, count: lines.count)
    var registerLatencies: [Int: Duration] = [:]

    static func ms(_ d: Duration) -> Double {
        Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
    }
}

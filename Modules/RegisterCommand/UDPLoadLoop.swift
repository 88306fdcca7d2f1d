import Glibc
import SIPCore
import SIPDialog
import SIPTransport
import Synchronization

/// The IO shell of load mode over UDP (decision D13): one thread, one connected socket, one
/// ``RegistrationLoad``. Each turn waits in `poll(2)` until a datagram arrives or the next
/// RFC 3261 timer, line deadline or run-control deadline is due (at most 100 ms, so a stop
/// request is seen at once), parses every queued datagram (`recvmmsg`), steps the machines, and
/// sends every REGISTER they produced in one `sendmmsg`. A response costs no task wake-up,
/// actor hop or continuation.
///
/// The register phase is paced by a ``LoadRunControl`` (rate, duration, run timeout, stops,
/// progress): the loop only asks it; nothing here knows those rules.
///
/// Owned by one thread at a time: built by the caller, run on its own thread by ``run(_:)``,
/// read again after that returns (hence `@unchecked Sendable`); ``requestStop(_:)`` may be
/// called from any thread.
final class UDPLoadLoop: @unchecked Sendable {
    private(set) var engine: RegistrationLoad
    private(set) var control: LoadRunControl?
    private let socket: UDPBatchSocket
    private let start: ContinuousClock.Instant
    /// Set from a signal handler task; the loop reads it every turn.
    private let stopRequest = Mutex<(reason: LoadRunControl.StopReason?, count: Int)>((nil, 0))

    init(engine: RegistrationLoad, socket: UDPBatchSocket) {
        self.engine = engine
        self.socket = socket
        self.start = ContinuousClock.now
    }

    /// Time since the loop was created (the engine's and the control's clock).
    var now: Duration { ContinuousClock.now - start }

    /// Asks the loop to stop (a signal, the run timeout); a second request during the
    /// unregister phase abandons that too.
    func requestStop(_ reason: LoadRunControl.StopReason) {
        stopRequest.withLock {
            $0.reason = reason
            $0.count += 1
        }
    }

    /// How many stops were requested so far.
    var stopRequests: Int { stopRequest.withLock { $0.count } }

    /// Runs one phase to its end on a dedicated thread. `control` paces the phase (nil: the
    /// engine's own concurrency, every queued line). `outcome` is called on that thread with the
    /// lines finished in each turn (in order), after that turn's messages went out; `progress`
    /// with each report the control makes.
    func run(_ phase: RegistrationLoad.Phase, control: LoadRunControl? = nil,
             progress: @escaping @Sendable (LoadRunControl.Progress) -> Void = { _ in },
             outcome: @escaping @Sendable ([RegistrationLoad.Outcome]) -> Void) async {
        self.control = control
        await DedicatedThread.run { [self] in loop(phase, progress: progress, outcome: outcome) }
    }

    private func loop(_ phase: RegistrationLoad.Phase, progress: (LoadRunControl.Progress) -> Void,
                      outcome: ([RegistrationLoad.Outcome]) -> Void) {
        let stopsBefore = stopRequests
        engine.begin(phase, now: now)
        pace(progress: progress, stopsBefore: stopsBefore)
        flush(outcome)
        let limits = SIPParserLimits(maxBodySize: 65_535)
        while !engine.isFinished {
            var wait: Duration = .milliseconds(100)
            if let next = engine.nextDeadline() { wait = min(wait, max(.zero, next - now)) }
            if let control { wait = min(wait, max(.zero, control.nextDeadline(now: now) - now)) }
            if socket.waitReadable(timeout: wait) {
                let received = now
                do {
                    try socket.receiveAll { bytes in
                        guard let message = try? SIPMessage(parsing: Array(bytes), limits: limits),
                              case .response(let response) = message else { return }
                        engine.receive(response, now: received)
                    }
                } catch {
                    // ICMP port unreachable and the like (RFC 3261 §8.1.3.1: a transport error
                    // for every request in flight), instead of waiting for Timer F.
                    engine.transportFailed(now: now)
                }
            }
            engine.fireTimers(now: now)
            flush(outcome)
            pace(progress: progress, stopsBefore: stopsBefore)
            flush(outcome)
        }
    }

    /// One turn of run control: stops, progress, and starting what may start.
    private func pace(progress: (LoadRunControl.Progress) -> Void, stopsBefore: Int) {
        let request = stopRequest.withLock { $0 }
        guard var control else {
            // Unpaced (the unregister phase): a stop requested during it abandons it.
            if request.count > stopsBefore { engine.abandonInFlight(now: now) }
            return
        }
        let now = self.now
        if let reason = request.reason { control.stop(reason) }
        if let report = control.tick(now: now) { progress(report) }
        if control.abandonsRunning {
            engine.abandonInFlight(now: now)
        } else if control.stopReason != nil {
            engine.stopStarting()
        } else {
            while engine.canStart, control.admit(now: now) {
                guard engine.startNext(now: now) else {
                    // Nothing startable after all (cycling, every line failed): undo and wait.
                    control.unstart()
                    break
                }
            }
            if !engine.canStart && control.stopReason == nil && engine.inFlight == 0 && !engine.cycles {
                control.stop(.completed)
            }
        }
        self.control = control
    }

    private func flush(_ outcome: ([RegistrationLoad.Outcome]) -> Void) {
        while engine.hasOutput {
            let messages = engine.takeOutgoing()
            if !messages.isEmpty {
                do { try socket.send(messages) } catch { engine.transportFailed(now: now) }
            }
            let finished = engine.takeOutcomes()
            if !finished.isEmpty {
                if var control {
                    for line in finished {
                        switch line.result {
                        case .registered, .unregistered: control.finished(ok: true, latency: line.latency)
                        case .failed: control.finished(ok: false, latency: nil)
                        case .abandoned: control.finished(ok: false, latency: nil, abandoned: true)
                        }
                    }
                    self.control = control
                }
                outcome(finished)
            }
        }
    }
}

/// Runs blocking work on a thread of its own, outside the cooperative pool (a load loop sits
/// in `poll(2)`; on a 2-core machine it must not take one of the pool's two threads).
enum DedicatedThread {
    private final class Work: @unchecked Sendable {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    static func run(_ body: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let work = Work {
                body()
                continuation.resume()
            }
            var thread = pthread_t()
            let rc = pthread_create(&thread, nil, { raw in
                let work = Unmanaged<Work>.fromOpaque(raw!).takeRetainedValue()
                work.body()
                return nil
            }, Unmanaged.passRetained(work).toOpaque())
            if rc == 0 {
                pthread_detach(thread)
            } else {
                Unmanaged<Work>.fromOpaque(Unmanaged.passUnretained(work).toOpaque()).release()
                work.body()
            }
        }
    }
}

import Glibc
import SIPCore
import SIPDialog
import SIPTransport

/// The IO shell of load mode over UDP (decision D13): one thread, one connected socket, one
/// ``RegistrationLoad``. Each turn waits in `poll(2)` until a datagram arrives or the next
/// RFC 3261 timer is due, parses every queued datagram (`recvmmsg`), steps the machines, and
/// sends every REGISTER they produced in one `sendmmsg`. A response costs no task wake-up,
/// actor hop or continuation.
///
/// Owned by one thread at a time: built by the caller, run on its own thread by ``run(_:)``,
/// read again after that returns (hence `@unchecked Sendable`).
final class UDPLoadLoop: @unchecked Sendable {
    private(set) var engine: RegistrationLoad
    private let socket: UDPBatchSocket
    private let start: ContinuousClock.Instant

    init(engine: RegistrationLoad, socket: UDPBatchSocket) {
        self.engine = engine
        self.socket = socket
        self.start = ContinuousClock.now
    }

    /// Time since the loop was created (the engine's clock).
    var now: Duration { ContinuousClock.now - start }

    /// Runs one phase to its end on a dedicated thread; `outcome` is called on that thread with
    /// the lines finished in each turn (in order), after that turn's messages went out.
    func run(_ phase: RegistrationLoad.Phase,
             outcome: @escaping @Sendable ([RegistrationLoad.Outcome]) -> Void) async {
        await DedicatedThread.run { [self] in loop(phase, outcome: outcome) }
    }

    private func loop(_ phase: RegistrationLoad.Phase, outcome: ([RegistrationLoad.Outcome]) -> Void) {
        engine.begin(phase, now: now)
        flush(outcome)
        let limits = SIPParserLimits(maxBodySize: 65_535)
        while !engine.isFinished {
            let wait = engine.nextDeadline().map { max(.zero, $0 - now) }
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
        }
    }

    private func flush(_ outcome: ([RegistrationLoad.Outcome]) -> Void) {
        while engine.hasOutput {
            let messages = engine.takeOutgoing()
            if !messages.isEmpty {
                do { try socket.send(messages) } catch { engine.transportFailed(now: now) }
            }
            let finished = engine.takeOutcomes()
            if !finished.isEmpty { outcome(finished) }
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

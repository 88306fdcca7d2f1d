import Glibc
import SIPCore
import SIPDialog
import SIPTransport
import Synchronization

/// The registration engine's outputs (bytes to send, each line's outcome) and, in a fleet, the
/// end of the hold: every held line unregistered, `--concurrency` at a time (RFC 3261 §10.2).
extension StreamLoadLoop {
    func flush(_ poll: EventPoll) {
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

    func handle(_ outcome: RegistrationLoad.Outcome, now at: Duration) {
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

    func beginUnregistering(_ at: Duration) {
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
    func unregisterMore(_ at: Duration) {
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

    func unregistrationEnded(_ line: Int, ok: Bool) {
        unregisterRunning = max(0, unregisterRunning - 1)
    }
}

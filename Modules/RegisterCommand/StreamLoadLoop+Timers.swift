import Glibc
import SIPCore
import SIPDialog
import SIPTransport
import Synchronization

/// Stops (SIGINT, `--run-timeout`: a second stop abandons what is left) and the connection-level
/// timers: keep-alive pings, pong and setup deadlines, reconnects (RFC 5626 §4.4.1).
extension StreamLoadLoop {
    func stop(_ reason: LoadRunControl.StopReason, count: Int, poll: EventPoll) {
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
    func abandonAll() {
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

    func scheduleKeepAlive(_ line: Int, now at: Duration) {
        guard case .fleet(_, let interval?) = mode else { return }
        // RFC 5626 §4.4.1: each interval chosen at random between 80 % and 100 % of the period.
        let fraction = 0.8 + 0.2 * Double(ids.nextUInt64() % 1000) / 1000
        schedule(.keepAlive, line: line, at: at + interval * fraction)
    }

    func schedule(_ kind: TimerKind, line: Int, at deadline: Duration) {
        lines[line].stamps[kind.rawValue] &+= 1
        timers.push(deadline, TimerEntry(line: Int32(line), kind: UInt8(kind.rawValue),
                                         stamp: lines[line].stamps[kind.rawValue]))
        // Cancelled entries pile up (every answered ping leaves its pong deadline behind).
        if timers.count > 4 * lines.count + 1024 { timers.retain(where: isLive) }
    }

    func cancel(_ kind: TimerKind, line: Int) { lines[line].stamps[kind.rawValue] &+= 1 }

    func cancelAll(_ line: Int) {
        for kind in 0..<4 { lines[line].stamps[kind] &+= 1 }
    }

    func isLive(_ entry: TimerEntry) -> Bool { lines[Int(entry.line)].stamps[Int(entry.kind)] == entry.stamp }

    func nextTimer() -> Duration? {
        while let top = timers.first {
            if isLive(top.payload) { return top.deadline }
            timers.popFirst()
        }
        return nil
    }

    func fireTimers(now at: Duration, poll: EventPoll) {
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

    func updateInterest(_ poll: EventPoll, line: Int) {
        guard let connection = connections[line], connection.fd >= 0 else { return }
        poll.modify(connection.fd, token: UInt64(line), writable: connection.wantsWrite)
    }
}

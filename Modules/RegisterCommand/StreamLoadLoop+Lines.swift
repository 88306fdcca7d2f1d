import Glibc
import SIPCore
import SIPDialog
import SIPTransport
import Synchronization

/// A line's connection: connect, the connection's events, answers to the server's
/// requests, a lost connection and its reconnect (RFC 5626 §4.5), a line's first outcome.
extension StreamLoadLoop {
    func connect(_ line: Int, poll: EventPoll, now at: Duration) {
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

    func handle(_ events: [LoadConnection.Event], line: Int, connection: LoadConnection, now at: Duration) {
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
    func answer(_ request: SIPRequest, on connection: LoadConnection) {
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

    func connectionLost(_ line: Int, cause: LoadFailureCause, reason: String, now at: Duration) {
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
    func lineFailed(_ line: Int, cause: LoadFailureCause, reason: String, now at: Duration) {
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
    func lineEnded(_ line: Int, ok: Bool, registerLatency: Duration? = nil, cause: LoadFailureCause?,
                           reason: String?, now at: Duration) {
        if !isFleet { lines[line].phase = .done }
        guard !lines[line].counted else { return }
        lines[line].counted = true
        if let cause { stats.failed(cause) }
        control.finished(ok: ok, latency: registerLatency)
        reports.append(.finished(line: line, ok: ok, registerLatency: registerLatency,
                                 handshake: handshakes[line], cause: cause, reason: reason))
    }

    func scheduleReconnect(_ line: Int, now at: Duration) {
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

    func close(_ line: Int) {
        cancelAll(line)
        connections[line]?.close()
        connections[line] = nil
    }
}

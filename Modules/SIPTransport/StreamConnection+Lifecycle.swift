import SIPCore

extension StreamConnection {
    /// Encrypts (TLS) and queues wire bytes in order; ``flush()`` writes them.
    func writeWire(_ bytes: [UInt8]) throws(TransportError) {
        if let tls {
            try tls.write(bytes)
            writeQueue += tls.drainOutbound()
        } else {
            writeQueue += bytes
        }
    }

    /// Writes the queue; one task at a time (the others' bytes are written by it, in order).
    func flush() async throws(TransportError) {
        guard !writing else { return }
        writing = true
        defer { writing = false }
        while !writeQueue.isEmpty && phase != .closed {
            let chunk = writeQueue
            writeQueue = []
            do {
                try await channel.send(chunk)
            } catch {
                let failure = TransportError(
                    .sendFailed, transport: transport, peer: remote.description, "write failed: \(error)")
                fail(failure)
                throw failure
            }
        }
    }

    /// Ends the connection once: logs why, reports `.closed` (or fails the opener), closes the socket.
    func fail(_ error: TransportError) {
        guard phase != .closed else { return }
        let opening = phase != .open
        phase = .closed
        keepAliveTimer?.cancel()
        keepAliveTimer = nil
        keepAlive?.stop()
        switch error.code {
        case .closed:
            options.log(.info, "\(transport) \(remote): \(error.detail)")
        default:
            options.log(.warning, "\(transport) connection to \(remote) ended: \(error)")
        }
        channel.close()
        readSink.finish()
        if let opener {
            self.opener = nil
            opener.resume(returning: error)
        } else if opening {
            openFailure = error
        } else {
            eventSink.yield(.closed(error))
        }
        eventSink.finish()
    }

    // MARK: Keep-alive (RFC 5626 §4.4)

    func startKeepAlive() {
        guard let configuration = options.keepAlive, phase == .open else { return }
        var machine = KeepAliveMachine(configuration: configuration, jitter: ids)
        let actions = machine.start()
        keepAlive = machine
        Task { await self.perform(actions) }
    }

    /// Runs one keep-alive event through the machine and performs its actions.
    func keepAliveEvent(_ event: (inout KeepAliveMachine) -> [KeepAliveMachine.Action]) async {
        guard var machine = keepAlive, phase == .open else { return }
        let actions = event(&machine)
        keepAlive = machine
        await perform(actions)
    }

    private func perform(_ actions: [KeepAliveMachine.Action]) async {
        for action in actions {
            switch action {
            case .armTimer(let delay):
                keepAliveTimer?.cancel()
                let clock = clock
                keepAliveTimer = Task { [weak self] in
                    do { try await clock.sleep(for: delay) } catch { return }
                    guard !Task.isCancelled else { return }
                    await self?.keepAliveEvent { $0.timerFired() }
                }
            case .sendPing:
                if let webSocket {
                    try? writeWire(webSocket.ping(Array("astra-keepalive".utf8)))
                } else {
                    try? writeWire([13, 10, 13, 10])
                }
                try? await flush()
            case .flowDead(let reason):
                fail(TransportError(.keepAliveTimeout, transport: transport, peer: remote.description, reason))
            }
        }
    }
}

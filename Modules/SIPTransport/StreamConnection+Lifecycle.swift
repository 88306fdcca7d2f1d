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
    /// A caller that finds a write in progress returns at once: the read loop must never wait for
    /// a writer a peer is not draining (both sides would stop reading). Closing waits with
    /// ``flushBeforeClosing(within:)`` instead.
    func flush() async throws(TransportError) {
        guard !writing else { return }
        writing = true
        defer {
            writing = false
            let waiters = flushWaiters
            flushWaiters = []
            for waiter in waiters { waiter.resume() }
        }
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
        let opening = phase == .tlsHandshake || phase == .webSocketHandshake
        phase = .closed
        stopKeepAliveTimer()
        keepAlive?.stop()
        closeTimer?.cancel()
        closeTimer = nil
        let waiters = closeWaiters
        closeWaiters = []
        defer { for waiter in waiters { waiter.resume() } }
        switch error.code {
        case .closed:
            options.log(.info, "\(transport) \(remote): \(error.detail)")
        default:
            options.log(.warning, "\(transport) connection to \(remote) ended: \(error)")
        }
        channel.close()
        reads.finish()
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

    // MARK: Closing (RFC 6455 §7.1, RFC 8446 §6.1)

    /// Writes what is queued (a Close frame, a close_notify) and returns once it is on the wire:
    /// when another task is writing, waits for it — at most `bound`, so a peer that stopped
    /// reading cannot hold the close.
    func flushBeforeClosing(within bound: Duration) async {
        guard writing else {
            try? await flush()
            return
        }
        let once = OnceResumer()
        let clock = clock
        let timer = Task {
            try? await clock.sleep(for: bound)
            once.resume()
        }
        await withCheckedContinuation { continuation in
            once.set(continuation)
            flushWaiters.append(once)
        }
        timer.cancel()
    }

    /// Enters ``Phase/closing``: keep-alive stops, only closing frames are written from now on.
    func beginClosing() {
        phase = .closing
        stopKeepAliveTimer()
        keepAlive?.stop()
    }

    /// Performs the close machine's actions in order; `.closeSocket` ends the connection with
    /// ``closeOutcome``.
    func performClose(_ actions: [ConnectionCloseMachine.Action]) async {
        for action in actions {
            switch action {
            case .sendWebSocketClose:
                if var ws = webSocket, let frame = ws.close(code: .normal, reason: "bye") {
                    webSocket = ws
                    try? writeWire(frame)
                }
                await flushBeforeClosing(within: options.closeTimeout)
            case .sendCloseNotify:
                if let tls {
                    tls.shutdown()
                    writeQueue += tls.drainOutbound()
                }
                await flushBeforeClosing(within: options.closeTimeout)
            case .armTimer(let bound):
                closeTimer?.cancel()
                let clock = clock
                closeTimer = Task { [weak self] in
                    do { try await clock.sleep(for: bound) } catch { return }
                    await self?.closeTimerFired()
                }
            case .closeSocket:
                fail(closeOutcome
                     ?? TransportError(.closed, transport: transport, peer: remote.description, "closed"))
            }
        }
    }

    private func closeTimerFired() async {
        guard phase == .closing else { return }
        let waitedFor = closer.state == .awaitingPeerClose ? "the peer's WebSocket Close" : "the peer to close TCP"
        options.log(.info, "\(transport) \(remote): closing without \(waitedFor) after \(options.closeTimeout)")
        // A write the peer never drains must not hold the last close_notify either: one more
        // bound, then the socket is closed under it (which ends the blocked write).
        let clock = clock, bound = options.closeTimeout
        let force = Task { [weak self] in
            do { try await clock.sleep(for: bound) } catch { return }
            await self?.performClose([.closeSocket])
        }
        await performClose(closer.timerFired())
        force.cancel()
    }

    // MARK: Keep-alive (RFC 5626 §4.4)

    func stopKeepAliveTimer() {
        keepAliveTimer?.cancel()
        keepAliveTimer = nil
        keepAliveStamp &+= 1
        if let keepAliveKey { options.timers?.cancel(keepAliveKey) }
    }

    private func sharedKeepAliveFired(_ stamp: UInt64) async {
        guard stamp == keepAliveStamp else { return }
        await keepAliveEvent { $0.timerFired() }
    }

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
                if let timers = options.timers, let key = keepAliveKey {
                    keepAliveStamp &+= 1
                    let stamp = keepAliveStamp
                    timers.start(key, after: delay) { [weak self] in
                        Task { await self?.sharedKeepAliveFired(stamp) }
                    }
                    continue
                }
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

import SIPCore
import SIPTransport

extension SIPEndpoint {
    /// Executes a client transaction's actions.
    func run(_ actions: [ClientTransactionAction<SIPResponse>], client key: TransactionKey) {
        for action in actions {
            guard let record = clients[key] else { return }
            switch action {
            case .sendRequest:
                transmit(record.bytes, failing: key, side: .client)
            case .sendACK(let response):
                transmit(AckBuilder.ackForNonSuccess(request: record.request, response: response).serialized(),
                         failing: nil, side: .client)
            case .deliver(let response):
                clients[key]!.listener.deliver(response)
            case .startTimer(let timer, let after):
                startTimer(TimerID(side: .client, key: key, timer: timer), after: after)
            case .cancelTimer(let timer):
                cancelTimer(TimerID(side: .client, key: key, timer: timer))
            case .terminate(let end):
                var listener = record.listener
                clients[key] = nil
                listener.ended(end)
                cancelAllTimers(of: key, side: .client)
            }
        }
    }

    /// Executes a server transaction's actions.
    func run(_ actions: [ServerTransactionAction<SIPResponse>], server key: TransactionKey) {
        for action in actions {
            guard servers[key] != nil else { return }
            switch action {
            case .sendResponse(let response):
                transmit(response.serialized(), failing: key, side: .server)
            case .absorbedACK:
                break
            case .startTimer(let timer, let after):
                startTimer(TimerID(side: .server, key: key, timer: timer), after: after)
            case .cancelTimer(let timer):
                cancelTimer(TimerID(side: .server, key: key, timer: timer))
            case .terminate:
                servers[key] = nil
                cancelAllTimers(of: key, side: .server)
            }
        }
    }

    /// Queues bytes for the channel; the single outbox task sends them in order. A failure is
    /// fed back to the transaction as a transport error (§8.1.3.1, §17.2.4).
    /// A datagram the socket takes at once goes out here, without waking the outbox task, as
    /// long as nothing waits in the outbox (order is kept).
    func transmit(_ bytes: [UInt8], failing key: TransactionKey?, side: TimerID.Side) {
        if queuedSends == 0, channel.sendImmediately(bytes) { return }
        queuedSends += 1
        outbox.yield(OutgoingMessage(bytes: bytes, key: key, side: side))
    }

    /// The outbox task finished one message.
    func outboxSent() {
        queuedSends -= 1
    }

    func transportFailed(_ key: TransactionKey, side: TimerID.Side) {
        switch side {
        case .client:
            guard var record = clients[key] else { return }
            let actions = record.machine.transportError()
            clients[key] = record
            run(actions, client: key)
        case .server:
            guard var record = servers[key] else { return }
            let actions = record.machine.transportError()
            servers[key] = record
            run(actions, server: key)
        }
    }

    func failAllClients() {
        for key in clients.keys { transportFailed(key, side: .client) }
    }

    // MARK: Timers

    func startTimer(_ id: TimerID, after: Duration) {
        let deadline = elapsed() + after
        timerQueue.schedule(id, at: deadline)
        if firingTimers { return }
        if let armed = timerWakeAt, armed <= deadline { return }
        armTimerWaker(at: deadline)
    }

    func cancelTimer(_ id: TimerID) {
        timerQueue.cancel(id)
        disarmWhenIdle()
    }

    func cancelAllTimers(of key: TransactionKey, side: TimerID.Side) {
        timerQueue.cancelAll(of: key, side: side)
        disarmWhenIdle()
    }

    /// No timer runs any more: the waker does not sleep on for a cancelled one (over TCP a
    /// transaction answered in milliseconds cancels its 32-s Timer F, and a line pinging every
    /// 30 s would keep a task sleeping for nothing all the time).
    private func disarmWhenIdle() {
        guard timerQueue.isEmpty, !firingTimers, timerWaker != nil else { return }
        timerWaker?.cancel()
        timerWaker = nil
        timerWakeAt = nil
        timerWakerGeneration &+= 1
        timerQueue.removeAll()
    }

    /// (Re)starts the one sleeping task for the earliest deadline.
    private func armTimerWaker(at deadline: Duration) {
        timerWaker?.cancel()
        timerWakerGeneration &+= 1
        let generation = timerWakerGeneration
        timerWakeAt = deadline
        let clock = self.clock
        let delay = max(.zero, deadline - elapsed())
        timerWaker = Task { [weak self] in
            do {
                try await clock.sleep(for: delay)
            } catch {
                return
            }
            await self?.timersDue(generation: generation)
        }
    }

    /// Fires every timer that is due (in deadline order), then sleeps until the next one.
    func timersDue(generation: UInt64) {
        guard generation == timerWakerGeneration else { return }
        timerWaker = nil
        timerWakeAt = nil
        let now = elapsed()
        let scheduled = timerQueue.lastSequence
        firingTimers = true
        while let id = timerQueue.popDue(now: now, scheduledBy: scheduled) { timerFired(id) }
        firingTimers = false
        if let next = timerQueue.nextDeadline() { armTimerWaker(at: next) }
    }

    func timerFired(_ id: TimerID) {
        switch id.side {
        case .client:
            guard var record = clients[id.key] else { return }
            let actions = record.machine.timerFired(id.timer)
            clients[id.key] = record
            run(actions, client: id.key)
        case .server:
            guard var record = servers[id.key] else { return }
            let actions = record.machine.timerFired(id.timer)
            servers[id.key] = record
            run(actions, server: id.key)
        }
    }
}

import Media
import SIPCore
import SIPDialog

/// Executing actions: the usage's actions run in order (transactions, responses and ACKs through
/// one outbox, timers), settling before the call is dropped, the machine's actions, statistics.
extension Call {
    /// Runs a mutation of the usage and executes what it returns.
    func signal(_ body: (inout InviteUsage) -> [InviteUsage.Action]) async {
        await execute(body(&usage))
    }

    func execute(_ actions: [InviteUsage.Action]) async {
        for action in actions {
            switch action {
            case .sendRequest(let request):
                send(.transaction(request))
            case .sendResponse(let response, let answering):
                guard let key = TransactionKey.server(request: answering), let record = incoming[key] else { continue }
                send(.response(record, response))
            case .sendACK(let ack):
                send(.ack(ack))
            case .startTimer(let timer, let delay):
                timers[timer]?.cancel()
                let clock = self.clock
                timers[timer] = Task { [weak self] in
                    do { try await clock.sleep(for: delay) } catch { return }
                    await self?.fire(timer)
                }
            case .cancelTimer(let timer):
                timers[timer]?.cancel()
                timers[timer] = nil
            case .event(let event):
                if case .info(let body) = event, let body { reportInfoDTMF(body) }
                if case .answered = event, answeredAt == nil {
                    answeredAt = clock.now
                    armWebRTCDeadline()
                }
                await run(machine.handle(event))
            }
        }
        resumeSettledWaiters()
    }

    func send(_ item: Outgoing) {
        unsent += 1
        outbox.yield(item)
    }

    /// The outbox task handed one message to the endpoint.
    func taken() {
        unsent -= 1
        resumeSettledWaiters()
    }

    /// Signalling is over and everything we asked to send has reached the endpoint.
    var isSettled: Bool { usage.isTerminated && unsent == 0 }

    func resumeSettledWaiters(force: Bool = false) {
        guard force || isSettled else { return }
        let waiting = settleWaiters
        settleWaiters = []
        for waiter in waiting { waiter.resume() }
    }

    /// After ``CallEvent/ended(_:_:)``: waits (at most `limit`, on the call's clock) until the
    /// dialog's last transaction is over — our BYE answered (RFC 3261 §15.1.1), our CANCEL's
    /// INVITE ended with 487 (§9.1), our 200 to their BYE handed to the transport — so a tool
    /// can close its flow without losing them. `false` when the limit ran out first (the BYE's
    /// transaction may still be retransmitting; Timer F is 64·T1).
    @discardableResult
    public func settle(within limit: Duration) async -> Bool {
        if isSettled { return true }
        let clock = self.clock
        let timeout = Task { [weak self] in
            do { try await clock.sleep(for: limit) } catch { return }
            await self?.resumeSettledWaiters(force: true)
        }
        await withCheckedContinuation { settleWaiters.append($0) }
        timeout.cancel()
        return isSettled
    }

    func fire(_ timer: InviteUsage.Timer) async {
        timers[timer] = nil
        await execute(usage.timerFired(timer))
    }

    /// Executes the call machine's actions.
    func run(_ actions: [CallMachine.Action]) async {
        for action in actions {
            switch action {
            case .emit(let event):
                sink.yield(event)
            case .applyAnswer(let body, let early):
                await applyAnswer(body, early: early)
            case .answerOffer(let body):
                await answerReoffer(body)
            case .hangUpSignalling:
                await execute(usage.hangUp())
            case .stopMedia:
                await finish()
            }
        }
    }

    /// The statistics so far (media counters, setup time, talk time since the answer): what
    /// `ended` reports at the end, and astra-call's `s` key during the call.
    public func statistics() async -> CallStatistics {
        var stats = CallStatistics(media: await media.statistics)
        if let answeredAt {
            stats.setupMilliseconds = CallStatistics.milliseconds(createdAt.duration(to: answeredAt))
            let talk = answeredAt.duration(to: clock.now)
            stats.durationSeconds = CallStatistics.milliseconds(talk) / 1000
        }
        stats.firstRTPMilliseconds = firstRTPAt.map { CallStatistics.milliseconds(createdAt.duration(to: $0)) }
        return stats
    }

    /// Stops media and timers and reports the end with the statistics (once).
    func finish() async {
        await media.stop(reason: nil)
        let stats = await statistics()
        for task in timers.values where usage.isTerminated { task.cancel() }
        sink.yield(.ended(machine.pendingReason ?? .localHangUp, stats))
        sink.finish()
    }
}

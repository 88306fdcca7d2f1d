import SIPCore

/// Stepping: lines launched while there is room, transaction actions performed (RFC 3261
/// §17.1.2), registration actions applied (§10.2), outcomes recorded; the timer heap with lazy
/// cancellation by stamp.
extension RegistrationLoad {
    mutating func launchWhileRoom(now: Duration) {
        while running < concurrency, !stoppedStarting, launchNext(now: now) {}
    }

    mutating func activate(_ index: Int, now: Duration) {
        running += 1
        slots[index].active = true
        slots[index].started = now
        if let lineTimeout { scheduleLineDeadline(slot: index, at: now + lineTimeout) }
    }

    mutating func launchNext(now: Duration) -> Bool {
        guard nextInQueue < queue.count else { return false }
        let index = queue[nextInQueue]
        nextInQueue += 1
        activate(index, now: now)
        let actions: [RegistrationClient.Action]
        switch phase {
        case .register where slots[index].registered:
            actions = slots[index].client.timerFired(.refresh)  // a cycle of --duration
        case .register: actions = slots[index].client.start(binding: binding)
        case .unregister: actions = slots[index].client.stop()
        }
        apply(actions, slot: index, now: now)
        return true
    }

    /// Executes a transaction's actions for line `index`.
    mutating func perform(_ actions: [NonInviteClientTransaction<SIPResponse>.Action], slot index: Int,
                                  now: Duration) {
        for action in actions {
            switch action {
            case .sendRequest:
                outgoing.append(slots[index].request)
                outgoingLines.append(Int32(index))
            case .startTimer(let timer, let after):
                schedule(timer, after: after, slot: index, now: now)
            case .cancelTimer(let timer):
                if timer == .E { slots[index].stampE &+= 1 } else if timer == .F { slots[index].stampF &+= 1 }
            case .deliver(let response):
                guard response.statusCode >= 200 else { continue }
                forgetTransaction(index)
                apply(slots[index].client.receive(response), slot: index, now: now)
                // The rest (Timer K, termination) belongs to the finished transaction; the line
                // may already have started its next one.
                return
            case .terminate(let end):
                guard slots[index].branch != nil else { continue }
                forgetTransaction(index)
                let cseq = slots[index].client.builder.cseq
                apply(slots[index].client.transactionFailed(end, cseq: cseq), slot: index, now: now)
            case .sendACK:
                continue
            }
        }
    }

    /// Executes a registration's actions for line `index`: a REGISTER starts a transaction; the
    /// registered / unregistered / failed events end the line's phase.
    mutating func apply(_ actions: [RegistrationClient.Action], slot index: Int, now: Duration) {
        // The clients render their REGISTERs as bytes (wire mode): a request made by the step
        // that returned `actions` waits in the client, not in a `.send` action.
        if let wire = slots[index].client.wireRequest {
            slots[index].client.wireRequest = nil
            startTransaction(wire, slot: index, now: now)
        }
        for action in actions {
            if recordsEvents, case .event(let event) = action { events.append((index, event)) }
            switch action {
            case .send(let request):
                startTransaction(request.serialized(), slot: index, now: now)
            case .event(.registered(let result)):
                slots[index].registered = true
                var refresh: Outcome.Refresh?
                if let due = slots[index].refreshDue {
                    let expiry = slots[index].expiresAt ?? .zero
                    refresh = Outcome.Refresh(lateness: max(.zero, slots[index].started - due), beforeExpiry: now <= expiry)
                }
                slots[index].refreshDue = nil
                slots[index].expiresAt = now + .seconds(Int(result.grantedExpires))
                finish(index, .registered(result), now: now, refresh: refresh)
            case .event(.unregistered):
                slots[index].registered = false
                finish(index, .unregistered, now: now)
            case .event(.failed(let failure)):
                finish(index, .failed(failure), now: now)
            case .startTimer(.refresh, let after) where holdsBindings:
                scheduleRefresh(slot: index, at: now + after)
            case .cancelTimer(.refresh):
                slots[index].stampRefresh &+= 1
            case .event, .startTimer, .cancelTimer:
                // Without holdsBindings no binding is kept alive; retry timers are never run.
                continue
            }
        }
    }

    mutating func startTransaction(_ request: [UInt8], slot index: Int, now: Duration) {
        // The builder made the branch (RFC 3261 §8.1.1.7): no need to parse our own Via back.
        let branch = slots[index].client.builder.lastBranch
        slots[index].request = request
        slots[index].branch = branch
        slots[index].transaction = NonInviteClientTransaction(reliable: reliable, timers: timers)
        byBranch[branch] = index
        perform(slots[index].transaction.start(), slot: index, now: now)
    }

    mutating func forgetTransaction(_ index: Int) {
        if let branch = slots[index].branch { byBranch[branch] = nil }
        slots[index].branch = nil
        slots[index].stampE &+= 1
        slots[index].stampF &+= 1
    }

    mutating func finish(_ index: Int, _ result: Outcome.Result, now: Duration,
                                 refresh: Outcome.Refresh? = nil) {
        guard slots[index].active else { return }
        if case .registered = result {} else { slots[index].refreshDue = nil }
        forgetTransaction(index)
        slots[index].active = false
        slots[index].request = []
        running -= 1
        slots[index].stampLine &+= 1
        outcomes.append(Outcome(index: index, latency: now - slots[index].started, result: result, refresh: refresh))
        if !paced || phase == .unregister { launchWhileRoom(now: now) }
    }

    // MARK: - Timer heap (lazy cancellation by stamp)

    func isLive(_ entry: TimerEntry) -> Bool {
        let slot = slots[Int(entry.slot)]
        switch entry.kind {
        case .e: return entry.stamp == slot.stampE
        case .f: return entry.stamp == slot.stampF
        case .line: return entry.stamp == slot.stampLine && slot.active
        case .refresh: return entry.stamp == slot.stampRefresh
        }
    }

    mutating func schedule(_ timer: TransactionTimer, after: Duration, slot index: Int, now: Duration) {
        let kind: TimerKind
        switch timer {
        case .E: kind = .e
        case .F: kind = .f
        default: return  // K is not kept (see the type's documentation)
        }
        if kind == .e { slots[index].stampE &+= 1 } else { slots[index].stampF &+= 1 }
        push(now + after, TimerEntry(slot: Int32(index), kind: kind,
                                     stamp: kind == .e ? slots[index].stampE : slots[index].stampF))
    }

    mutating func scheduleLineDeadline(slot index: Int, at deadline: Duration) {
        slots[index].stampLine &+= 1
        push(deadline, TimerEntry(slot: Int32(index), kind: .line, stamp: slots[index].stampLine))
    }

    mutating func scheduleRefresh(slot index: Int, at deadline: Duration) {
        slots[index].stampRefresh &+= 1
        push(deadline, TimerEntry(slot: Int32(index), kind: .refresh, stamp: slots[index].stampRefresh))
    }

    mutating func push(_ deadline: Duration, _ entry: TimerEntry) {
        if heap.count >= compactAt && heap.count > 8 * running { compactHeap() }
        heap.push(deadline, entry)
    }

    /// Drops cancelled entries (most Timer F entries are: their transaction ended long before).
    mutating func compactHeap() {
        heap.retain(where: isLive)
        // Held lines keep a live refresh timer each: compact again only once the heap doubled.
        compactAt = max(256, 2 * heap.count)
    }
}

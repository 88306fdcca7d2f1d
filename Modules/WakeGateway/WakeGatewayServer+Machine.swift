import SIPCore
import SIPDialog
import SIPTransport

/// The actor as the shell of each call's ``HeldCallMachine`` (ADR 0145, docs/wake-gateway.md
/// "The proxy machine"): a message, an HTTP ack or a timer becomes one event on the call's
/// machine; the new state is written back at once, every action that changes the actor's own
/// tables (timers, indexes, grants, events) is executed in the same turn, and only then are the
/// messages sent. No await sits between hearing an event and acting on it, so two events can
/// never both act on the state one of them saw (the CANCEL/failover race).
extension WakeGatewayServer {
    typealias Machine = HeldCallMachine<SIPResponse>

    /// One armed timer of one call; `generation` tells a stale wake-up (cancelled, or replaced by
    /// a newer start of the same kind) from the live one.
    struct ArmedTimer {
        let generation: UInt64
        let task: Task<Void, Never>
    }

    /// The machine's timeouts from the configuration: the decision's timers, T1 from
    /// `--sip-t1-ms` with T2 = 8·T1 and T4 = 0 (the call lingers 64·T1 after its final with its
    /// branch indexed, which already absorbs ACK retransmissions, so Timer I need not wait).
    var machineSettings: Machine.Settings {
        let t1 = configuration.sipT1Ms
        return Machine.Settings(
            decision: configuration.decision,
            timers: TransactionTimers(t1: .milliseconds(t1), t2: .milliseconds(8 * t1), t4: .zero),
            hasFailoverURI: failoverURI != nil, goneNotice: configuration.goneNotice,
            goneCancelFallback: .milliseconds(Self.goneCancelFallbackMs))
    }

    /// `--failover-uri`, parsed.
    var failoverURI: SIPURI? { configuration.failoverURI.flatMap { try? SIPURI(parsing: $0) } }

    /// Wait for the phone's alerting answer before the gone notice's CANCEL (ms); after it, any
    /// 1xx will do.
    static var goneCancelFallbackMs: Int64 { 1_000 }

    /// One event on call `id`: the machine steps, its actions run, then what they send goes out.
    func step(_ id: Int32, _ event: (inout Machine) -> [Machine.Action]) async {
        guard var call = calls[id] else { return }
        var actions = event(&call.machine)
        calls[id] = call
        var outbox: [(bytes: [UInt8], to: SocketAddress)] = []
        // A push refused before any request (rate limit, back-off) is the machine's next event,
        // fed once this batch has run (its ack-window timer armed before the refusal cancels it).
        while execute(id, actions, into: &outbox), var again = calls[id] {
            actions = again.machine.pushRefused()
            calls[id] = again
        }
        for message in outbox { await send(message.bytes, to: message.to) }
    }

    /// Runs `actions` of call `id` in order, without awaiting; messages go to `outbox`. Returns
    /// whether a push was refused at once.
    private func execute(
        _ id: Int32, _ actions: [Machine.Action], into outbox: inout [(bytes: [UInt8], to: SocketAddress)]
    ) -> Bool {
        var refused = false
        for action in actions {
            guard let call = calls[id] else { return false }
            switch action {
            case .sendUpstream(let what):
                outbox.append((upstreamBytes(call, what), call.upstream))
            case .sendQualify:
                if let bytes = qualify(id) { outbox.append((bytes, configuration.kamailio)) }
            case .sendPush:
                if push(id) != nil { refused = true }
            case .sendDownstream(let leg, let again):
                let bytes = again ? call.forwardedBytes : forward(id, on: leg)
                outbox.append((bytes, configuration.kamailio))
            case .ackDownstream(let response):
                if let bytes = downstreamACK(call, response) { outbox.append((bytes, configuration.kamailio)) }
            case .cancelDownstream:
                if let bytes = downstreamCancel(call) { outbox.append((bytes, configuration.kamailio)) }
            case .endAnsweredNotice(let response, let again):
                if !again {
                    for message in endAnsweredGoneNotice(id, response) { outbox.append((message, configuration.kamailio)) }
                } else if let ack = call.goneNoticeACK {
                    outbox.append((ack, configuration.kamailio))  // a 2xx retransmission: the same ACK
                }
            case .revokePush:
                if let pushID = call.pushID { grants.revoke(pushID) }  // a late ack finds nothing (404)
            case .startTimer(let timer, let delay):
                arm(id, timer, after: delay)
            case .cancelTimer(let timer):
                timers[id]?.removeValue(forKey: timer)?.task.cancel()
            case .emit(let report):
                self.report(report, call)
            case .free:
                free(id)
            }
        }
        return refused
    }

    /// What goes upstream: our own responses (the 480 with its reason), or a relayed one with
    /// our Via removed (§16.7 step 3).
    func upstreamBytes(_ call: HeldCall, _ what: Machine.Upstream) -> [UInt8] {
        switch what {
        case .trying:
            return localResponse(call, 100)
        case .local(let status, let why):
            var extra = SIPHeaders()
            var phrase: String?
            switch status {
            case 480:
                let reason = why.hasPrefix("failover_") ? String(why.dropFirst("failover_".count)) : why
                phrase = "Temporarily Unavailable"
                extra.add("Reason", "SIP;cause=480;text=\"wake \(reason)\"")
                extra.add("Warning", "399 astra-wakegw \"wake failover: \(reason)\"")
            case 487: phrase = "Request Terminated"
            case 503: phrase = "Service Unavailable"
            default: break
            }
            return localResponse(call, status, reason: phrase, toTag: call.toTag, extra: extra)
        case .relay(var response):
            _ = try? response.headers.removeTopVia()
            return response.serialized()
        }
    }

    /// A response to the held INVITE from the gateway itself (100, 480, 487, 503, 408).
    func localResponse(
        _ call: HeldCall, _ status: Int, reason: String? = nil, toTag: String? = nil, extra: SIPHeaders = SIPHeaders()
    ) -> [UInt8] {
        var headers = extra
        headers.add(.server, "astra-wakegw")
        return SIPResponse(to: call.invite, statusCode: status, reasonPhrase: reason, toTag: toTag, headers: headers)
            .serialized()
    }

    // MARK: Timers (on the injected clock; virtual in the machine's own tests)

    func arm(_ id: Int32, _ timer: Machine.Timer, after delay: Duration) {
        timers[id]?[timer]?.task.cancel()
        timerGeneration &+= 1
        let generation = timerGeneration
        let clock = clock
        let task = Task { [weak self] in
            do { try await clock.sleep(for: delay) } catch { return }
            await self?.fired(id, timer, generation)
        }
        timers[id, default: [:]][timer] = ArmedTimer(generation: generation, task: task)
    }

    func fired(_ id: Int32, _ timer: Machine.Timer, _ generation: UInt64) async {
        guard timers[id]?[timer]?.generation == generation else { return }
        timers[id]?[timer] = nil
        await step(id) { $0.timerFired(timer) }
    }

    /// The machine said `free`: the call, its branch indexes, push grant and timers go.
    func free(_ id: Int32) {
        guard let call = calls.removeValue(forKey: id) else { return }
        byUpstreamBranch[call.upstreamBranch] = nil
        if let branch = call.downstreamBranch { byDownstreamBranch[branch] = nil }
        if let branch = call.qualifyBranch { byQualifyBranch[branch] = nil }
        if let pushID = call.pushID { grants.revoke(pushID) }
        for armed in (timers.removeValue(forKey: id) ?? [:]).values { armed.task.cancel() }
        grants.expire(nowMs: nowMs)
    }
}

import AstraJSON
import PushKitEmu
import SIPCore
import SIPTransport

/// Receiving: requests from Kamailio (INVITE, CANCEL, ACK, replicated REGISTER) and responses to
/// what the gateway sent (released INVITEs, qualifies, CANCELs).
extension WakeGatewayServer {
    static var wakeHeader: SIPHeaderName { "X-Astra-Wake" }
    static var pushIDHeader: SIPHeaderName { "X-Astra-Push-Id" }

    /// Only trusted sources (Kamailio) may talk to the gateway: anything else — a REGISTER with
    /// `pn-*` that would redirect someone's pushes, an INVITE that would push, a response that
    /// would release a call — is dropped unanswered (no reflection, no oracle) and counted.
    func handle(_ received: ReceivedMessage) async {
        guard configuration.trustedSources.contains(where: { $0.matches(received.remote) }) else {
            count("sip_untrusted")
            if (counters["sip_untrusted"] ?? 0) & 1023 == 1 {
                log("sip: dropped a message from untrusted \(received.remote) (\(counters["sip_untrusted"] ?? 0) so far)")
            }
            return
        }
        switch received.message {
        case .request(let request):
            switch request.method {
            case .invite: await incomingInvite(request, from: received.remote)
            case .cancel: await incomingCancel(request, from: received.remote)
            case .ack: await incomingAck(request)
            case .register: await incomingRegister(request, from: received.remote)
            case .options: await reply(to: request, 200, to: received.remote)
            default: await reply(to: request, 501, to: received.remote)
            }
        case .response(let response):
            await incomingResponse(response)
        }
    }

    // MARK: Sending

    func send(_ bytes: [UInt8], to remote: SocketAddress) async {
        do { try await udp.send(bytes, to: remote) } catch { log("sip: send to \(remote) failed: \(error)") }
    }

    func reply(
        to request: SIPRequest, _ status: Int, reason: String? = nil, toTag: String? = nil,
        extra: SIPHeaders = SIPHeaders(),
        to remote: SocketAddress
    ) async {
        var headers = extra
        headers.add(.server, "astra-wakegw")
        let response = SIPResponse(
            to: request, statusCode: status, reasonPhrase: reason, toTag: toTag, headers: headers)
        await send(response.serialized(), to: remote)
    }

    func newBranch() -> String { "z9hG4bK-wgw-" + ids.token(length: 16) }

    func via(_ branch: String) -> String {
        "SIP/2.0/UDP \(sipAddress.uriHost):\(sipAddress.port);branch=\(branch);rport"
    }

    /// Sends `bytes` now and again at T1, 2·T1, … capped at T2 (RFC 3261 §17.1.1.2 Timer A)
    /// until ``stopRetransmitting(_:)`` or 64·T1.
    func sendReliably(_ bytes: [UInt8], to remote: SocketAddress, key: String) async {
        await send(bytes, to: remote)
        retransmissions[key]?.cancel()
        let clock = clock
        let t1 = configuration.sipT1Ms
        retransmissions[key] = Task { [weak self] in
            var interval = t1
            var total: Int64 = 0
            while total < 64 * t1 {
                do { try await clock.sleep(for: .milliseconds(interval)) } catch { return }
                total += interval
                guard let self else { return }
                await self.send(bytes, to: remote)
                interval = min(interval * 2, 8 * t1)
            }
            if !Task.isCancelled { await self?.retransmissionsDone(key) }
        }
    }

    /// Timer B/H ran out (64·T1): the task is gone, so is its entry.
    func retransmissionsDone(_ key: String) { retransmissions[key] = nil }

    func stopRetransmitting(_ key: String) {
        retransmissions.removeValue(forKey: key)?.cancel()
    }

    // MARK: INVITE from Kamailio (RFC 3261 §16.2–§16.3)

    func incomingInvite(_ invite: SIPRequest, from remote: SocketAddress) async {
        guard let branch = try? invite.headers.topVia()?.branch, let callID = invite.headers.callID else {
            await reply(to: invite, 400, reason: "Bad Request (Via branch, Call-ID)", to: remote)
            return
        }
        if let id = byUpstreamBranch[branch], calls[id] != nil {
            // A retransmission: the transaction repeats our last word (§17.2.1).
            await upstreamStep(id) { $0.receiveRequestRetransmission() }
            return
        }
        if draining {
            // Stopping: the caller's proxy tries the next gateway (Kamailio's dispatcher on 503).
            var extra = SIPHeaders()
            extra.add("Retry-After", "5")
            await reply(to: invite, 503, reason: "Service Unavailable (gateway stopping)", extra: extra, to: remote)
            count("refused_draining")
            return
        }
        let maxForwards = (try? invite.headers.maxForwards()) ?? 70
        if maxForwards <= 0 {
            await reply(to: invite, 483, to: remote)
            return
        }
        let user = invite.uri.user ?? ""
        nextCall += 1
        let id = nextCall
        let caller = (try? invite.headers.from())?.uri.user ?? "anonymous"
        var call = HeldCall(
            id: id, user: user, domain: invite.uri.host?.description ?? sipAddress.ip, caller: caller, callID: callID,
            invite: invite, upstream: remote, upstreamBranch: branch, toTag: "wgw" + ids.tag(), arrivedMs: nowMs)
        call.upstreamTransaction = .init(reliable: false, timers: upstreamTimers)
        calls[id] = call
        byUpstreamBranch[branch] = id
        let trying = localResponse(call, 100)
        await upstreamStep(id) { $0.send(status: 100, trying) }
        if state.isShared {
            // Another gateway may hold the line's token. The read is an await: a CANCEL that came
            // meanwhile already answered the caller (487), so the call is not pushed for.
            await refreshRegistrations(user)
            guard let held = calls[id], held.phase == .held, !held.cancelledByCaller else { return }
        }
        let live = registrationLive(user)
        let registration = store.registration(for: user)
        // A sealed registration's caller is for the phone only: not in clear here either.
        var held: JSONObject = ["call": .int(Int64(id)), "call_id": .string(callID), "user": .string(user)]
        if seals(registration) { held["sealed"] = .bool(true) } else { held["caller"] = .string(caller) }
        held["registration_live"] = .bool(live)
        held["has_token"] = .bool(registration != nil)
        held["token_source"] = .string(registration?.source.rawValue ?? "none")
        emit(WakeEvent("call_held", held))
        await wake?.incomingCall(id, registrationLive: live, hasToken: registration != nil)
    }

    // MARK: CANCEL (§16.10)

    func incomingCancel(_ cancel: SIPRequest, from remote: SocketAddress) async {
        guard let branch = try? cancel.headers.topVia()?.branch, let id = byUpstreamBranch[branch],
            var call = calls[id]
        else {
            await reply(to: cancel, 481, to: remote)
            return
        }
        await reply(to: cancel, 200, to: remote)
        guard !call.cancelledByCaller else { return }
        call.cancelledByCaller = true
        call.cancelledMs = nowMs
        calls[id] = call
        if call.phase != .finished {
            // The decision is another actor: while it hears that the caller left, its ack window
            // may run out (the caller gets its 480 through `finish`) or the phone may take the
            // call (released). What the CANCEL ends up doing follows the phase after that, and
            // the event says that phase, so that `phase: held` always means the caller got 487.
            await wake?.callerLeft(id)
        }
        let phase = calls[id]?.phase ?? .finished
        emit(
            WakeEvent(
                "cancelled",
                [
                    ("call", .int(Int64(id))), ("call_id", .string(call.callID)), ("phase", .string("\(phase)")),
                    ("since_invite_ms", .int(nowMs - call.arrivedMs)),
                ]))
        switch phase {
        case .held:
            await finish(id, status: 487, reason: "Request Terminated", why: "cancelled")
        case .released:
            // The decision sends the CANCEL downstream (§16.10); the phone's 487 comes back.
            await cancelDownstream(id)  // idempotent: also covers a failover-URI leg the decision no longer owns
        case .finished:
            break
        }
    }

    /// The ACK of our own non-2xx final: Timer G and H stop (§17.2.1).
    func incomingAck(_ ack: SIPRequest) async {
        guard let branch = try? ack.headers.topVia()?.branch, let id = byUpstreamBranch[branch] else { return }
        await upstreamStep(id) { $0.receiveACK() }
    }

    /// Answers the caller with our own final response (failover 480, 487 after CANCEL, 503).
    func finish(_ id: Int32, status: Int, reason: String, why: String, extra: SIPHeaders = SIPHeaders()) async {
        guard var call = calls[id], call.phase != .finished else { return }
        call.phase = .finished
        calls[id] = call
        settle(id)
        let bytes = localResponse(call, status, reason: reason, toTag: call.toTag, extra: extra)
        await upstreamStep(id) { $0.send(status: status, bytes) }
        emit(
            WakeEvent(
                "call_ended",
                [
                    ("call", .int(Int64(id))), ("call_id", .string(call.callID)), ("status", .int(Int64(status))),
                    ("why", .string(why)), ("since_invite_ms", .int(nowMs - call.arrivedMs)),
                ]))
    }

    // MARK: Responses (§16.7)

    func incomingResponse(_ response: SIPResponse) async {
        guard let top = try? response.headers.topVia(), let branch = top.branch else { return }
        if let id = byQualifyBranch[branch] {
            if response.statusCode >= 200 { byQualifyBranch[branch] = nil }
            guard calls[id]?.qualifyBranch == branch else { return }
            emit(
                WakeEvent(
                    "qualify_result",
                    [("call", .int(Int64(id))), ("status", .int(Int64(response.statusCode)))]))
            if (200...299).contains(response.statusCode) {
                await wake?.qualifyAnswered(id)
            } else if response.statusCode >= 300 {
                // Kamailio answers at once when the binding has no usable flow (404 no binding,
                // 408/480/500 for a dead WS contact): a failed qualify now, not at the timer.
                calls[id]?.qualifyBranch = nil
                await wake?.qualifyFailed(id)
            }
            return
        }
        guard let id = byDownstreamBranch[branch], var call = calls[id] else { return }
        if call.goneNoticeMs != nil {
            await goneNoticeResponse(id, response)
            return
        }
        let method = (try? response.headers.cseq())?.method
        if method == .cancel { return }  // 200 to our CANCEL: nothing to relay
        stopRetransmitting("invite-\(id)")
        call.gotDownstreamResponse = true
        let status = response.statusCode
        if status == 100 {
            calls[id] = call
            return
        }
        var upstream = response
        _ = try? upstream.headers.removeTopVia()
        if status >= 300 {
            await ackDownstream(call, response: response)
        }
        let alreadyFinal = call.phase == .finished && !(200...299).contains(status)
        if status < 200 {
            if !call.rang, status == 180 || status == 183 {
                call.rang = true
                if let pushed = call.pushSentMs { metrics.rang(afterPushSeconds: Double(nowMs - pushed) / 1_000) }
                emit(
                    WakeEvent(
                        "ringing",
                        [
                            ("call", .int(Int64(id))), ("status", .int(Int64(status))),
                            ("since_release_ms", .int(nowMs - (call.releasedMs ?? nowMs))),
                            ("since_invite_ms", .int(nowMs - call.arrivedMs)),
                        ]))
            }
        } else if (200...299).contains(status) {
            if !call.answered {
                call.answered = true
                call.phase = .finished
                emit(
                    WakeEvent(
                        "answered",
                        [
                            ("call", .int(Int64(id))), ("since_release_ms", .int(nowMs - (call.releasedMs ?? nowMs))),
                            ("since_invite_ms", .int(nowMs - call.arrivedMs)),
                        ]))
                calls[id] = call
                await wake?.answered(id)
            }
        } else if !alreadyFinal {
            call.phase = .finished
            emit(
                WakeEvent(
                    "call_ended",
                    [
                        ("call", .int(Int64(id))), ("call_id", .string(call.callID)), ("status", .int(Int64(status))),
                        ("why", .string("downstream_final")), ("since_invite_ms", .int(nowMs - call.arrivedMs)),
                    ]))
        }
        calls[id] = call
        if call.phase == .finished { settle(id) }
        if alreadyFinal { return }
        // 2xx retransmissions are relayed too (§16.7 step 5); non-2xx finals once.
        await send(upstream.serialized(), to: call.upstream)
    }

    /// ACK for a non-2xx final from downstream (§17.1.1.3): same R-URI, our Via/branch, To with tag.
    func ackDownstream(_ call: HeldCall, response: SIPResponse) async {
        guard let forwarded = call.forwarded, let branch = call.downstreamBranch else { return }
        var headers = SIPHeaders()
        headers.add(.via, via(branch))
        headers.add(.maxForwards, "70")
        if let from = forwarded.headers[.from] { headers.add(.from, from) }
        if let to = response.headers[.to] { headers.add(.to, to) }
        headers.add(.callID, call.callID)
        let sequence = (try? forwarded.headers.cseq())?.sequence ?? 1
        headers.add(.cseq, "\(sequence) ACK")
        headers.add(Self.wakeHeader, "released")
        let ack = SIPRequest(method: .ack, uri: forwarded.uri, headers: headers)
        await send(ack.serialized(), to: configuration.kamailio)
    }
}

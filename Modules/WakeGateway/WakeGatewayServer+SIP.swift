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

    // MARK: INVITE from Kamailio (RFC 3261 §16.2–§16.3)

    func incomingInvite(_ invite: SIPRequest, from remote: SocketAddress) async {
        guard let branch = try? invite.headers.topVia()?.branch, let callID = invite.headers.callID else {
            await reply(to: invite, 400, reason: "Bad Request (Via branch, Call-ID)", to: remote)
            return
        }
        if let id = byUpstreamBranch[branch], calls[id] != nil {
            // A retransmission: the transaction repeats our last word (§17.2.1).
            await step(id) { $0.inviteRetransmitted() }
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
        calls[id] = HeldCall(
            id: id, user: user, domain: invite.uri.host?.description ?? sipAddress.ip, caller: caller, callID: callID,
            invite: invite, upstream: remote, upstreamBranch: branch, toTag: "wgw" + ids.tag(), arrivedMs: nowMs,
            machine: Machine(settings: machineSettings))
        byUpstreamBranch[branch] = id
        await step(id) { $0.received() }
        if state.isShared {
            // Another gateway may hold the line's token. The read is an await: a CANCEL that came
            // meanwhile already answered the caller (487), and the machine then decides nothing.
            await refreshRegistrations(user)
        }
        let live = registrationLive(user)
        let hasToken = store.registration(for: user) != nil
        await step(id) { $0.decide(registrationLive: live, hasToken: hasToken) }
    }

    // MARK: CANCEL (§16.10)

    /// 200 to the CANCEL itself, then one event on the machine: whatever it heard first (the ack
    /// window's failover, the release) decides what the CANCEL does — 487 while held, a CANCEL
    /// downstream once released, nothing after a final — and the `cancelled` event says the phase.
    func incomingCancel(_ cancel: SIPRequest, from remote: SocketAddress) async {
        guard let branch = try? cancel.headers.topVia()?.branch, let id = byUpstreamBranch[branch],
            calls[id] != nil
        else {
            await reply(to: cancel, 481, to: remote)
            return
        }
        await reply(to: cancel, 200, to: remote)
        if calls[id]?.cancelledMs == nil { calls[id]?.cancelledMs = nowMs }
        await step(id) { $0.cancel() }
    }

    /// The ACK of our own non-2xx final: Timer G and H stop (§17.2.1).
    func incomingAck(_ ack: SIPRequest) async {
        guard let branch = try? ack.headers.topVia()?.branch, let id = byUpstreamBranch[branch] else { return }
        await step(id) { $0.ack() }
    }

    // MARK: Responses (§16.7)

    /// A qualify's answer, or a response on a forwarded INVITE (the machine relays, ACKs and
    /// absorbs as §16.7 and §17.1.1 say; the 200 to our own CANCEL is dropped here: its CSeq
    /// says CANCEL).
    func incomingResponse(_ response: SIPResponse) async {
        guard let top = try? response.headers.topVia(), let branch = top.branch else { return }
        let status = response.statusCode
        if let id = byQualifyBranch[branch] {
            if status >= 200 { byQualifyBranch[branch] = nil }
            guard calls[id]?.qualifyBranch == branch else { return }
            emit(WakeEvent("qualify_result", [("call", .int(Int64(id))), ("status", .int(Int64(status)))]))
            if (200...299).contains(status) {
                await step(id) { $0.qualifyAnswered() }
            } else if status >= 300 {
                // Kamailio answers at once when the binding has no usable flow (404 no binding,
                // 408/480/500 for a dead WS contact): a failed qualify now, not at the timer.
                calls[id]?.qualifyBranch = nil
                await step(id) { $0.qualifyFailed() }
            }
            return
        }
        guard let id = byDownstreamBranch[branch], calls[id] != nil else { return }
        if (try? response.headers.cseq())?.method == .cancel { return }  // 200 to our CANCEL
        await step(id) { $0.downstreamResponse(status: status, response) }
    }
}

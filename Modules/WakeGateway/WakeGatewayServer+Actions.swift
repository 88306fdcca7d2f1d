import PushKitEmu
import SIPCore
import SIPTransport

/// The wake decision's actions (``WakeTransport``) and the replicated REGISTER.
extension WakeGatewayServer {
    // MARK: Qualify (decision step 1 and step 4)

    /// OPTIONS `sip:user@domain` through Kamailio, marked: Kamailio's `lookup("location")` sends
    /// it to the registered contact (200 = live) or answers 404 itself (no binding). A final
    /// non-2xx is a failed qualify at once (``WakeServer/qualifyFailed(_:)``); no answer at all is
    /// left to the qualify timer.
    func sendQualify(_ id: Int32) async {
        guard var call = calls[id], call.phase == .held else { return }
        let branch = newBranch()
        if let old = call.qualifyBranch { byQualifyBranch[old] = nil }
        call.qualifyBranch = branch
        calls[id] = call
        byQualifyBranch[branch] = id
        let target = "sip:\(call.user)@\(call.domain)"
        var headers = SIPHeaders()
        headers.add(.via, via(branch))
        headers.add(.maxForwards, "70")
        headers.add(.from, "<sip:wakegw@\(call.domain)>;tag=\(ids.tag())")
        headers.add(.to, "<\(target)>")
        headers.add(.callID, "wgw-q-\(ids.token(length: 12))@\(sipAddress.ip)")
        headers.add(.cseq, "1 OPTIONS")
        headers.add(Self.wakeHeader, "qualify")
        guard let uri = try? SIPURI(parsing: target) else { return }
        let options = SIPRequest(method: .options, uri: uri, headers: headers)
        emit(WakeEvent("qualify", [("call", .int(Int64(id))), ("target", .string(target))]))
        await send(options.serialized(), to: configuration.kamailio)
    }

    // MARK: Release (decision: sendInvite)

    /// Forwards the held INVITE back to Kamailio, marked (RFC 3261 §16.6: our Via on top,
    /// Max-Forwards − 1; no Record-Route — the gateway needs no in-dialog requests).
    func release(_ id: Int32, direct: Bool) async {
        guard let call = calls[id], call.phase == .held, !call.cancelledByCaller else { return }
        await forward(id, to: nil)
        guard let released = calls[id] else { return }
        emit(
            WakeEvent(
                "released",
                [
                    ("call", .int(Int64(id))), ("call_id", .string(call.callID)), ("user", .string(call.user)),
                    ("direct", .bool(direct)), ("push_id", .string(call.pushID.map(PushGrants.redacted) ?? "")),
                    ("since_ack_ms", .int(call.ackMs.map { (released.releasedMs ?? nowMs) - $0 } ?? -1)),
                    ("since_invite_ms", .int((released.releasedMs ?? nowMs) - call.arrivedMs)),
                ]))
    }

    /// Sends the INVITE downstream to Kamailio (to the original R-URI, or `requestURI`).
    func forward(_ id: Int32, to requestURI: SIPURI?) async {
        guard var call = calls[id] else { return }
        let (invite, branch) = downstreamInvite(call, to: requestURI)
        call.forwarded = invite
        call.downstreamBranch = branch
        call.phase = .released
        call.releasedMs = nowMs
        calls[id] = call
        byDownstreamBranch[branch] = id
        await sendReliably(invite.serialized(), to: configuration.kamailio, key: "invite-\(id)")
    }

    /// The held INVITE as it goes downstream: marked, our Via on top, Max-Forwards − 1, the push-id.
    func downstreamInvite(_ call: HeldCall, to requestURI: SIPURI?) -> (SIPRequest, String) {
        var invite = call.invite
        if let requestURI { invite.uri = requestURI }
        _ = invite.headers.remove(Self.wakeHeader)  // never trust a marker from upstream
        _ = invite.headers.remove(Self.pushIDHeader)
        let maxForwards = (try? invite.headers.maxForwards()) ?? 70
        invite.headers.set(.maxForwards, String(max(maxForwards - 1, 0)))
        let branch = newBranch()
        invite.headers.insert(.via, via(branch), at: 0)
        invite.headers.add(Self.wakeHeader, "released")
        if let pushID = call.pushID { invite.headers.add(Self.pushIDHeader, pushID) }
        return (invite, branch)
    }

    // MARK: CANCEL downstream (§16.10)

    func cancelDownstream(_ id: Int32) async {
        guard var call = calls[id], let forwarded = call.forwarded, let branch = call.downstreamBranch,
            !call.cancelSent, !call.answered
        else { return }
        call.cancelSent = true
        calls[id] = call
        var headers = SIPHeaders()
        headers.add(.via, via(branch))
        headers.add(.maxForwards, "70")
        if let from = forwarded.headers[.from] { headers.add(.from, from) }
        if let to = forwarded.headers[.to] { headers.add(.to, to) }
        headers.add(.callID, call.callID)
        headers.add(.cseq, "\((try? forwarded.headers.cseq())?.sequence ?? 1) CANCEL")
        if call.goneNoticeMs != nil {
            // RFC 3326: why this INVITE is cancelled (Kamailio copies the Reason to its CANCEL).
            headers.add("Reason", "SIP;cause=487;text=\"wake caller_left\"")
        }
        let cancel = SIPRequest(method: .cancel, uri: forwarded.uri, headers: headers)
        emit(WakeEvent("cancel_sent", [("call", .int(Int64(id)))]))
        await send(cancel.serialized(), to: configuration.kamailio)
    }

    // MARK: Gone notice (option --gone-notice; decision: sendGoneNotice)

    /// The caller left after the phone's ack, before the release, and the woken phone has just
    /// registered (or was qualifying): tell it the standard way. The held INVITE goes to the fresh
    /// contact exactly as a release would (marked, through Kamailio's lookup), and is CANCELled as
    /// soon as the phone's alerting answer (180/183) shows its branch exists. RFC 3261 §9.1 only
    /// asks for a 1xx, and Kamailio's hop-by-hop 100 Trying comes at once — but it is sent before
    /// Kamailio has relayed the INVITE to the phone, and a CANCEL processed by another Kamailio
    /// worker in that gap kills the branch unsent (the phone then never hears of the call). A
    /// phone that never alerts is CANCELled on any 1xx after ``goneCancelFallbackMs``. The phone
    /// sees INVITE + CANCEL — a caller
    /// who hung up while it rang — claims its CallKit placeholder and ends it `remoteEnded`; no
    /// second push (R3) and no new phone protocol (docs/wake-gateway.md "Gone notice", D12).
    /// The caller already has its 487: nothing of this leg goes upstream.
    func goneNotice(_ id: Int32) async {
        guard var call = calls[id], call.cancelledByCaller, call.forwarded == nil else { return }
        let (invite, branch) = downstreamInvite(call, to: nil)
        call.forwarded = invite
        call.downstreamBranch = branch
        call.goneNoticeMs = nowMs
        calls[id] = call
        byDownstreamBranch[branch] = id
        let clock = clock
        retransmissions["gone-\(id)"]?.cancel()
        retransmissions["gone-\(id)"] = Task { [weak self] in
            do { try await clock.sleep(for: .milliseconds(Self.goneCancelFallbackMs)) } catch { return }
            await self?.goneNoticeFallback(id)
        }
        let registerMs = lastRegisterMs[call.user]
        emit(
            WakeEvent(
                "gone_notice",
                [
                    ("call", .int(Int64(id))), ("call_id", .string(call.callID)), ("user", .string(call.user)),
                    ("push_id", .string(call.pushID.map(PushGrants.redacted) ?? "")),
                    ("channel", .string("invite_cancel")),
                    ("since_cancel_ms", .int(call.cancelledMs.map { nowMs - $0 } ?? -1)),
                    ("since_register_ms", .int(registerMs.map { nowMs - $0 } ?? -1)),
                    ("since_ack_ms", .int(call.ackMs.map { nowMs - $0 } ?? -1)),
                ]))
        await sendReliably(invite.serialized(), to: configuration.kamailio, key: "invite-\(id)")
    }

    /// Wait for the phone's alerting answer before the gone notice's CANCEL (ms); after it, any
    /// 1xx will do.
    static var goneCancelFallbackMs: Int64 { 1_000 }

    func goneNoticeFallback(_ id: Int32) async {
        retransmissions["gone-\(id)"] = nil
        guard var call = calls[id], !call.goneNoticeDone, !call.cancelSent else { return }
        call.goneNoticeFallbackDue = true
        calls[id] = call
        if call.goneNoticeProvisional { await cancelDownstream(id) }
    }

    /// A response on the gone notice's INVITE: the phone's 180/183 (or any 1xx once the fallback
    /// is due) triggers the CANCEL; the final answer is ACKed (a 2xx — the user had tapped Answer on the placeholder and the 200 beat our
    /// CANCEL, RFC 3261 §9.1 — is ACKed and ended with a BYE). Nothing is relayed upstream.
    func goneNoticeResponse(_ id: Int32, _ response: SIPResponse) async {
        guard let call = calls[id] else { return }
        let status = response.statusCode
        if (try? response.headers.cseq())?.method == .cancel { return }  // 200 to our CANCEL
        stopRetransmitting("invite-\(id)")
        if status < 200 {
            calls[id]?.goneNoticeProvisional = true
            if status > 100 || call.goneNoticeFallbackDue {
                await cancelDownstream(id)  // once: cancelDownstream is idempotent
            }
            return
        }
        stopRetransmitting("gone-\(id)")
        if status >= 300 {
            await ackDownstream(call, response: response)
        } else if let ack = call.goneNoticeACK {
            await send(ack, to: configuration.kamailio)  // a 2xx retransmission: the same ACK
            return
        } else {
            await endAnsweredGoneNotice(id, response)
        }
        guard !call.goneNoticeDone else { return }
        calls[id]?.goneNoticeDone = true
        emit(
            WakeEvent(
                "gone_notice_done",
                [
                    ("call", .int(Int64(id))), ("call_id", .string(call.callID)), ("status", .int(Int64(status))),
                    ("since_notice_ms", .int(call.goneNoticeMs.map { nowMs - $0 } ?? -1)),
                    ("since_cancel_ms", .int(call.cancelledMs.map { nowMs - $0 } ?? -1)),
                ]))
    }

    /// The phone answered the gone notice's INVITE before the CANCEL reached it: the gateway is
    /// the only UAC left on this leg, so it ACKs the 2xx and sends BYE (RFC 3261 §12.1.2 route
    /// set from the Record-Route in reverse, remote target the Contact), both through Kamailio.
    func endAnsweredGoneNotice(_ id: Int32, _ ok: SIPResponse) async {
        guard var call = calls[id], let forwarded = call.forwarded,
            let target = (try? ok.headers.contacts())?.first?.address?.uri
        else { return }
        let routes = ((try? ok.headers.recordRoutes()) ?? []).reversed().map(\.description)
        let sequence = (try? forwarded.headers.cseq())?.sequence ?? 1
        func request(_ method: SIPMethod, _ cseq: UInt32) -> SIPRequest {
            var headers = SIPHeaders()
            headers.add(.via, via(newBranch()))
            headers.add(.maxForwards, "70")
            for route in routes { headers.add(.route, route) }
            if let from = forwarded.headers[.from] { headers.add(.from, from) }
            if let to = ok.headers[.to] { headers.add(.to, to) }
            headers.add(.callID, call.callID)
            headers.add(.cseq, "\(cseq) \(method.rawValue)")
            if method == .bye { headers.add("Reason", "SIP;cause=487;text=\"wake caller_left\"") }
            return SIPRequest(method: method, uri: target, headers: headers)
        }
        let ack = request(.ack, sequence).serialized()
        call.goneNoticeACK = ack
        calls[id] = call
        await send(ack, to: configuration.kamailio)
        emit(WakeEvent("bye_sent", [("call", .int(Int64(id))), ("call_id", .string(call.callID))]))
        await send(request(.bye, sequence + 1).serialized(), to: configuration.kamailio)
    }

    // MARK: Failover (decision step 3 and dead ends)

    func failover(_ id: Int32, reason: FailoverReason) async {
        guard var call = calls[id], call.phase != .finished else { return }
        call.failedOver = true
        calls[id] = call
        if let pushID = call.pushID { grants.revoke(pushID) }  // a late ack finds nothing (404)
        let elapsed = nowMs - call.arrivedMs
        metrics.failedOver(reason: reason.rawValue, afterSeconds: Double(elapsed) / 1_000)
        let sinceAck = call.ackMs.map { nowMs - $0 } ?? -1
        if let target = configuration.failoverURI, let uri = try? SIPURI(parsing: target), call.phase == .held,
            !call.cancelledByCaller
        {
            emit(
                WakeEvent(
                    "failover",
                    [
                        ("call", .int(Int64(id))), ("call_id", .string(call.callID)),
                        ("reason", .string(reason.rawValue)),
                        ("target", .string(target)), ("since_invite_ms", .int(elapsed)),
                        ("since_push_ms", .int(call.pushSentMs.map { nowMs - $0 } ?? -1)),
                        ("since_ack_ms", .int(sinceAck)),
                    ]))
            await forward(id, to: uri)
            return
        }
        emit(
            WakeEvent(
                "failover",
                [
                    ("call", .int(Int64(id))), ("call_id", .string(call.callID)), ("reason", .string(reason.rawValue)),
                    ("status", .int(480)), ("since_invite_ms", .int(elapsed)),
                    ("since_push_ms", .int(call.pushSentMs.map { nowMs - $0 } ?? -1)), ("since_ack_ms", .int(sinceAck)),
                ]))
        var extra = SIPHeaders()
        extra.add("Reason", "SIP;cause=480;text=\"wake \(reason.rawValue)\"")
        extra.add("Warning", "399 astra-wakegw \"wake failover: \(reason.rawValue)\"")
        await finish(
            id, status: 480, reason: "Temporarily Unavailable", why: "failover_" + reason.rawValue, extra: extra)
    }

    // MARK: Replicated REGISTER (Kamailio t_replicate after save("location"))

    func incomingRegister(_ register: SIPRequest, from remote: SocketAddress) async {
        await reply(to: register, 200, to: remote)
        guard let user = (try? register.headers.to())?.uri.user else { return }
        let contacts = (try? register.headers.contacts()) ?? []
        let headerExpires = (try? register.headers.expires()).flatMap { $0 }
        var maxExpires: UInt32 = 0
        var pn: (provider: String, prid: String?, param: String?, contact: SIPContact)?
        for contact in contacts {
            if contact.address == nil {  // "*": remove every binding
                maxExpires = 0
                break
            }
            let expires = contact.expires ?? headerExpires ?? 120
            maxExpires = max(maxExpires, expires == 0 ? 0 : min(max(expires, 30), 300))
            if let provider = contact.pushProvider { pn = (provider, contact.pushPRID, contact.pushParam, contact) }
        }
        let now = nowMs
        let fresh = maxExpires > 0
        if fresh {
            bindings[user] = now + Int64(maxExpires) * 1_000
            lastRegisterMs[user] = now
        } else {
            bindings[user] = nil
        }
        var pnUsed = false
        if let pn,
            var registration = PushRegistration.rfc8599(
                endpoint: user, provider: pn.provider, prid: pn.prid, param: pn.param,
                environment: configuration.pnEnvironment, nowMs: WallClock.nowMs()),
            case .success(let sealing) = rfc8599Sealing(user, pn.contact)
        {
            registration.sealing = sealing
            await saveRFC8599(registration)
            pnUsed = true
        }
        emit(
            WakeEvent(
                "register_seen",
                [
                    ("user", .string(user)), ("expires", .int(Int64(maxExpires))),
                    ("contacts", .int(Int64(contacts.count))),
                    ("pn_provider", .string(pn?.provider ?? "")), ("pn_used", .bool(pnUsed)),
                ]))
        guard fresh else { return }
        for (id, call) in calls where call.user == user {
            // Held calls wait for this REGISTER; so does a gone notice owed to the woken phone
            // (the caller left after the ack: the call is finished upstream, the decision is not).
            if call.phase == .held || (call.cancelledByCaller && call.forwarded == nil && call.ackMs != nil) {
                await wake?.registerReceived(id)
            }
        }
    }
}

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
                    ("direct", .bool(direct)), ("push_id", .string(call.pushID ?? "")),
                    ("since_ack_ms", .int(call.ackMs.map { (released.releasedMs ?? nowMs) - $0 } ?? -1)),
                    ("since_invite_ms", .int((released.releasedMs ?? nowMs) - call.arrivedMs)),
                ]))
    }

    /// Sends the INVITE downstream to Kamailio (to the original R-URI, or `requestURI`).
    func forward(_ id: Int32, to requestURI: SIPURI?) async {
        guard var call = calls[id] else { return }
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
        call.forwarded = invite
        call.downstreamBranch = branch
        call.phase = .released
        call.releasedMs = nowMs
        calls[id] = call
        byDownstreamBranch[branch] = id
        await sendReliably(invite.serialized(), to: configuration.kamailio, key: "invite-\(id)")
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
        let cancel = SIPRequest(method: .cancel, uri: forwarded.uri, headers: headers)
        emit(WakeEvent("cancel_sent", [("call", .int(Int64(id)))]))
        await send(cancel.serialized(), to: configuration.kamailio)
    }

    // MARK: Push (decision step 2)

    /// Sends the VoIP push through the APNs emulator; `nil` = accepted (delivered, stored or
    /// dropped — a dropped push is still "sent": the ack window decides).
    func push(_ id: Int32) async -> APNsRejection? {
        guard var call = calls[id], let registration = store.registration(for: call.user) else { return .unregistered }
        let pushID = call.pushID ?? "p-" + ids.token(length: 16)
        call.pushID = pushID
        call.pushSentMs = nowMs
        calls[id] = call
        byPushID[pushID] = id
        var request = APNsRequest()
        request.topic = registration.topic
        request.expirationSeconds = 0
        request.priority = 10
        request.pushType = "voip"
        let payload =
            "{\"push_id\":" + JSONLine.quote(pushID) + ",\"caller\":" + JSONLine.quote(call.caller) + ",\"call_id\":"
            + JSONLine.quote(call.callID) + ",\"aps\":{}}"
        let result = await apns.send(
            token: registration.token, environment: registration.environment, request: request, payload: payload)
        let outcome: String
        let apnsID: String
        switch result {
        case .delivered(let id): (outcome, apnsID) = ("delivered", id)
        case .dropped(let id): (outcome, apnsID) = ("dropped", id)
        case .stored(let id): (outcome, apnsID) = ("stored", id)
        case .rejected(let reason): (outcome, apnsID) = ("rejected:" + reason.rawValue, "")
        }
        emit(
            WakeEvent(
                "push_sent",
                [
                    ("call", .int(Int64(id))), ("call_id", .string(call.callID)), ("user", .string(call.user)),
                    ("push_id", .string(pushID)), ("apns_id", .string(apnsID)), ("apns", .string(outcome)),
                    ("token", .string(registration.redactedToken)),
                    ("token_source", .string(registration.source.rawValue)),
                    ("topic", .string(registration.topic)), ("since_invite_ms", .int(nowMs - call.arrivedMs)),
                ]))
        if case .rejected(let reason) = result { return reason }
        return nil
    }

    func goneNotice(_ id: Int32) async {
        log("wake: gone notice for call \(id) not implemented (option off)")
    }

    // MARK: Failover (decision step 3 and dead ends)

    func failover(_ id: Int32, reason: FailoverReason) async {
        guard var call = calls[id], call.phase != .finished else { return }
        call.failedOver = true
        calls[id] = call
        let elapsed = nowMs - call.arrivedMs
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
        var pn: (provider: String, prid: String?, param: String?)?
        for contact in contacts {
            if contact.address == nil {  // "*": remove every binding
                maxExpires = 0
                break
            }
            let expires = contact.expires ?? headerExpires ?? 120
            maxExpires = max(maxExpires, expires == 0 ? 0 : min(max(expires, 30), 300))
            if let provider = contact.pushProvider { pn = (provider, contact.pushPRID, contact.pushParam) }
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
        if let pn, pn.provider.lowercased() == "apns", let prid = pn.prid.flatMap(TokenText.normalized) {
            let bundle = Self.bundleID(fromPNParam: pn.param)
            store.setRFC8599(
                PushRegistration(
                    endpoint: user, token: prid, environment: configuration.pnEnvironment, bundleID: bundle,
                    platform: "ios", updatedAt: WallClock.nowMs(), source: .rfc8599))
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
        for (id, call) in calls where call.user == user && call.phase == .held {
            await wake?.registerReceived(id)
        }
    }

    /// RFC 8599 APNs `pn-param` is `<TeamID>.<bundle id>.voip`; the bundle id without either.
    static func bundleID(fromPNParam param: String?) -> String {
        guard var text = param, !text.isEmpty else { return "com.example.astra" }
        if text.hasSuffix(".voip") { text = String(text.dropLast(5)) }
        let parts = text.split(separator: ".", maxSplits: 1)
        if parts.count == 2, parts[0].count == 10, parts[0].allSatisfy({ $0.isUppercase || $0.isNumber }) {
            return String(parts[1])
        }
        return text
    }
}

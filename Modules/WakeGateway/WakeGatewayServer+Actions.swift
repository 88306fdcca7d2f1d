import PushKitEmu
import SIPCore
import SIPTransport

/// The messages the machine's actions send (``HeldCallMachine/Action``), built here without
/// awaiting (the shell sends them once the step has run), and the replicated REGISTER.
extension WakeGatewayServer {
    // MARK: Qualify (decision step 1 and step 4)

    /// OPTIONS `sip:user@domain` through Kamailio, marked: Kamailio's `lookup("location")` sends
    /// it to the registered contact (200 = live) or answers 404 itself (no binding). A final
    /// non-2xx is a failed qualify at once (``HeldCallMachine/qualifyFailed()``); no answer at
    /// all is left to the qualify timer.
    func qualify(_ id: Int32) -> [UInt8]? {
        guard var call = calls[id] else { return nil }
        let target = "sip:\(call.user)@\(call.domain)"
        guard let uri = try? SIPURI(parsing: target) else { return nil }
        let branch = newBranch()
        if let old = call.qualifyBranch { byQualifyBranch[old] = nil }
        call.qualifyBranch = branch
        calls[id] = call
        byQualifyBranch[branch] = id
        var headers = SIPHeaders()
        headers.add(.via, via(branch))
        headers.add(.maxForwards, "70")
        headers.add(.from, "<sip:wakegw@\(call.domain)>;tag=\(ids.tag())")
        headers.add(.to, "<\(target)>")
        headers.add(.callID, "wgw-q-\(ids.token(length: 12))@\(sipAddress.ip)")
        headers.add(.cseq, "1 OPTIONS")
        headers.add(Self.wakeHeader, "qualify")
        emit(WakeEvent("qualify", [("call", .int(Int64(id))), ("target", .string(target))]))
        return SIPRequest(method: .options, uri: uri, headers: headers).serialized()
    }

    // MARK: Forward (release, the failover URI, the gone notice; RFC 3261 §16.6)

    /// The held INVITE, back to Kamailio marked (our Via on top, Max-Forwards − 1; no
    /// Record-Route — the gateway needs no in-dialog requests): to the original R-URI for the
    /// phone and the gone notice, to `--failover-uri` for a failover leg.
    func forward(_ id: Int32, on leg: Machine.Leg) -> [UInt8] {
        guard var call = calls[id] else { return [] }
        var requestURI: SIPURI?
        switch leg {
        case .phone: break
        case .failover: requestURI = failoverURI
        case .goneNotice: call.goneNoticeMs = nowMs
        }
        let (invite, branch) = downstreamInvite(call, to: requestURI)
        if let old = call.downstreamBranch { byDownstreamBranch[old] = nil }
        call.forwarded = invite
        call.forwardedBytes = invite.serialized()
        call.downstreamBranch = branch
        call.releasedMs = nowMs
        calls[id] = call
        byDownstreamBranch[branch] = id
        return call.forwardedBytes
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

    // MARK: CANCEL and ACK downstream (§16.10, §17.1.1.3)

    /// CANCEL of the forwarded INVITE (same R-URI, Via branch, From, To, Call-ID, CSeq number).
    /// The machine asks for it at most once per call and never after the phone's 2xx.
    func downstreamCancel(_ call: HeldCall) -> [UInt8]? {
        guard let forwarded = call.forwarded, let branch = call.downstreamBranch else { return nil }
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
        return SIPRequest(method: .cancel, uri: forwarded.uri, headers: headers).serialized()
    }

    /// ACK for a non-2xx final from downstream (§17.1.1.3): same R-URI, our Via/branch, To with tag.
    func downstreamACK(_ call: HeldCall, _ response: SIPResponse) -> [UInt8]? {
        guard let forwarded = call.forwarded, let branch = call.downstreamBranch else { return nil }
        var headers = SIPHeaders()
        headers.add(.via, via(branch))
        headers.add(.maxForwards, "70")
        if let from = forwarded.headers[.from] { headers.add(.from, from) }
        if let to = response.headers[.to] { headers.add(.to, to) }
        headers.add(.callID, call.callID)
        let sequence = (try? forwarded.headers.cseq())?.sequence ?? 1
        headers.add(.cseq, "\(sequence) ACK")
        headers.add(Self.wakeHeader, "released")
        return SIPRequest(method: .ack, uri: forwarded.uri, headers: headers).serialized()
    }

    // MARK: Gone notice (option --gone-notice; docs/wake-gateway.md "Gone notice")

    /// The caller left after the phone's ack, before the release, and the woken phone has just
    /// registered (or was qualifying): the machine tells it the standard way. The held INVITE
    /// goes to the fresh contact exactly as a release would (``forward(_:on:)``, leg
    /// `goneNotice`) and is CANCELled as soon as the phone's alerting answer (180/183) shows its
    /// branch exists. RFC 3261 §9.1 only asks for a 1xx, and Kamailio's hop-by-hop 100 Trying
    /// comes at once — but it is sent before Kamailio has relayed the INVITE to the phone, and a
    /// CANCEL processed by another Kamailio worker in that gap kills the branch unsent (the phone
    /// then never hears of the call). A phone that never alerts is CANCELled on any 1xx after
    /// ``goneCancelFallbackMs``. The phone sees INVITE + CANCEL — a caller who hung up while it
    /// rang — claims its CallKit placeholder and ends it `remoteEnded`; no second push (R3) and
    /// no new phone protocol (D12). The caller already has its 487: nothing of this leg goes
    /// upstream.
    ///
    /// The phone answered the gone notice's INVITE before the CANCEL reached it: the gateway is
    /// the only UAC left on this leg, so it ACKs the 2xx and sends BYE (RFC 3261 §12.1.2 route
    /// set from the Record-Route in reverse, remote target the Contact), both through Kamailio.
    func endAnsweredGoneNotice(_ id: Int32, _ ok: SIPResponse) -> [[UInt8]] {
        guard var call = calls[id], let forwarded = call.forwarded,
            let target = (try? ok.headers.contacts())?.first?.address?.uri
        else { return [] }
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
        emit(WakeEvent("bye_sent", [("call", .int(Int64(id))), ("call_id", .string(call.callID))]))
        return [ack, request(.bye, sequence + 1).serialized()]
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
        // Held calls wait for this REGISTER; so does a gone notice owed to the woken phone (the
        // caller left after the ack: the call is finished upstream, the decision is not). The
        // machine knows which; for the others it changes nothing.
        for id in calls.values.filter({ $0.user == user }).map(\.id).sorted() {
            await step(id) { $0.registerSeen() }
        }
    }
}

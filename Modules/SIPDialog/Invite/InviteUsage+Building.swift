import SIPCore

extension InviteUsage {
    /// Our Contact on the current flow (§8.1.1.8): the user of our address, `transport=` as needed.
    var contactAddress: SIPNameAddress {
        SIPNameAddress(uri: binding.contactURI(user: localAddress.uri.user))
    }

    /// `Supported` for requests and 2xx: `timer` when session timers are on (RFC 4028 §7.1).
    var supportedValue: String? { settings.sessionTimers ? "timer" : nil }

    /// Authorization / Proxy-Authorization for a request to `uri`, from the remembered
    /// challenges (empty before the first 401/407, §22.2).
    mutating func authorization(method: SIPMethod, uri: SIPURI, body: SessionBody?) -> [(SIPHeaderName, String)] {
        guard digest != nil else { return [] }
        let fields =
            (try? digest!.authorizationHeaders(
                method: method.rawValue, uri: uri.description,
                body: body?.bytes ?? [])) ?? []
        return fields.map { (SIPHeaderName($0.name), $0.value) }
    }

    /// §13.2.1 / §8.1.1: the initial INVITE with the current ``inviteSequence``, a new branch,
    /// credentials when challenged, our offer and the session-timer request.
    mutating func sendInvite() -> [Action] {
        var headers = SIPHeaders()
        headers.add(.via, binding.via(branch: ids.branch()).description)
        headers.add(.maxForwards, "70")
        for route in initialRoutes { headers.add(.route, route.description) }
        headers.add(.from, localAddress.description)
        headers.add(.to, remoteAddress.description)
        headers.add(.callID, callID)
        headers.add(.cseq, SIPCSeq(inviteSequence, .invite).description)
        headers.add(.contact, contactAddress.description)
        headers.add(.allow, settings.allow)
        if let supported = supportedValue { headers.add(.supported, supported) }
        if let interval = requestedSessionExpires {
            headers.add(.sessionExpires, SessionExpires(interval: interval).description)
            headers.add(SessionExpires.minSEHeader, String(currentMinSE))
        }
        headers.add(.userAgent, settings.userAgent)
        for (name, value) in authorization(method: .invite, uri: target, body: localBody) { headers.add(name, value) }
        var request = SIPRequest(method: .invite, uri: target, headers: headers)
        if let body = localBody { request.setBody(body.bytes, contentType: body.contentType) }
        invite = request
        return [.sendRequest(request)]
    }

    /// §9.1: the CANCEL for our INVITE: same Request-URI, Call-ID, From, To, Route and top Via
    /// (same branch), CSeq number of the INVITE with method CANCEL, no body.
    func makeCancel() -> SIPRequest? {
        guard let invite else { return nil }
        var headers = SIPHeaders()
        if let via = invite.headers.values(.via).first { headers.add(.via, via) }
        headers.add(.maxForwards, "70")
        for route in invite.headers.values(.route) { headers.add(.route, route) }
        for name in [SIPHeaderName.from, .to, .callID] {
            if let value = invite.headers[name] { headers.add(name, value) }
        }
        headers.add(.cseq, SIPCSeq(inviteSequence, .cancel).description)
        headers.add(.userAgent, settings.userAgent)
        return SIPRequest(method: .cancel, uri: invite.uri, headers: headers)
    }

    /// A request in the confirmed dialog (§12.2.1.1) with a new branch, our Contact for target
    /// refreshes, credentials and `extra` headers.
    mutating func makeInDialog(
        _ method: SIPMethod, body: SessionBody?,
        extra: [(SIPHeaderName, String)] = []
    ) -> SIPRequest {
        guard var dialog else { preconditionFailure("in-dialog \(method) without a dialog") }
        var headers = extra
        let refreshesTarget = method == .invite || method == .update
        if refreshesTarget {
            headers.append((.allow, settings.allow))
            if let supported = supportedValue { headers.append((.supported, supported)) }
        }
        headers.append((.userAgent, settings.userAgent))
        headers += authorization(method: method, uri: dialog.routing.requestURI, body: body)
        let request = dialog.makeRequest(
            method, via: binding.via(branch: ids.branch()),
            contact: refreshesTarget ? contactAddress : nil,
            body: body?.bytes ?? [], contentType: body?.contentType,
            headers: headers, ids: ids)
        self.dialog = dialog
        return request
    }

    /// §13.2.2.4: the ACK for a 2xx with CSeq `sequence` in `dialog`, carrying the INVITE's
    /// credentials (§22.1 allows them), remembered for re-ACKing retransmissions.
    mutating func makeACK(in dialog: Dialog, sequence: UInt32) -> SIPRequest {
        var extra: [(SIPHeaderName, String)] = []
        if let invite, sequence == inviteSequence {
            for name in [SIPHeaderName.authorization, .proxyAuthorization] {
                for value in invite.headers.values(name) { extra.append((name, value)) }
            }
        }
        extra.append((.userAgent, settings.userAgent))
        let ack = dialog.makeACK(inviteSequence: sequence, via: binding.via(branch: ids.branch()), headers: extra)
        acks[AckKey(remoteTag: dialog.id.remoteTag, sequence: sequence)] = ack
        return ack
    }

    /// ``Action/sendResponse(_:answering:)`` with ``makeResponse(to:status:reason:body:extra:)``.
    func reply(
        to request: SIPRequest, status: Int, reason: String? = nil, body: SessionBody? = nil,
        extra: [(SIPHeaderName, String)] = []
    ) -> Action {
        .sendResponse(
            makeResponse(to: request, status: status, reason: reason, body: body, extra: extra), answering: request)
    }

    /// A response to `request` (§8.2.6): our To tag, and for 101–299 to a dialog-creating or
    /// target-refresh request our Contact (§12.1.1); Record-Route is copied by SIPCore.
    func makeResponse(
        to request: SIPRequest, status: Int, reason: String? = nil, body: SessionBody? = nil,
        extra: [(SIPHeaderName, String)] = []
    ) -> SIPResponse {
        var headers = SIPHeaders()
        let targetRefresh = request.method == .invite || request.method == .update
        if targetRefresh && (101...299).contains(status) { headers.add(.contact, contactAddress.description) }
        if status >= 200 && status < 300 && targetRefresh {
            headers.add(.allow, settings.allow)
            if let supported = supportedValue { headers.add(.supported, supported) }
        }
        for (name, value) in extra { headers.add(name, value) }
        headers.add(.server, settings.userAgent)
        var response = SIPResponse(
            to: request, statusCode: status, reasonPhrase: reason,
            toTag: status == 100 ? nil : localAddress.tag, headers: headers)
        if let body { response.setBody(body.bytes, contentType: body.contentType) }
        return response
    }
}

import SIPCore

extension Dialog {
    /// Where an in-dialog request goes (RFC 3261 §12.2.1.1): its Request-URI and Route headers.
    public struct Routing: Sendable, Hashable {
        public var requestURI: SIPURI
        public var routes: [SIPNameAddress]
    }

    /// §12.2.1.1: with an empty route set, the remote target and no Route; when the first route
    /// is a loose router (`lr`), the remote target and the whole route set as Route; otherwise
    /// (strict router) the first route's URI, without URI headers, becomes the Request-URI and the
    /// Route list is the rest of the route set followed by the remote target.
    public var routing: Routing {
        guard let first = routeSet.first else { return Routing(requestURI: remoteTarget, routes: []) }
        if first.uri.isLooseRouter { return Routing(requestURI: remoteTarget, routes: routeSet) }
        var uri = first.uri
        uri.headers = []
        uri.parameters.remove("method")
        return Routing(requestURI: uri, routes: Array(routeSet.dropFirst()) + [SIPNameAddress(uri: remoteTarget)])
    }

    /// Builds a request inside this dialog (§12.2.1.1): Request-URI and Route from ``routing``,
    /// From / To / Call-ID from the dialog, CSeq = local sequence + 1. For BYE, re-INVITE, INFO,
    /// OPTIONS, UPDATE; never ACK or CANCEL (see ``makeACK(inviteSequence:via:body:contentType:headers:)``).
    ///
    /// - Parameters:
    ///   - method: BYE, INVITE (re-INVITE), INFO, OPTIONS or UPDATE.
    ///   - via: the Via for the new client transaction (fresh branch).
    ///   - contact: our Contact; required in re-INVITE and UPDATE (target refresh, §12.2.1.1).
    ///   - body: the body, if any (an SDP offer in a re-INVITE).
    ///   - contentType: the body's Content-Type.
    ///   - extra: extra headers (Authorization, Session-Expires, Supported, …), in order.
    ///   - ids: the sequence number's start when the dialog has none yet.
    public mutating func makeRequest(
        _ method: SIPMethod, via: SIPVia, contact: SIPNameAddress?, body: [UInt8] = [], contentType: String? = nil,
        headers extra: [(SIPHeaderName, String)] = [], ids: some IdentifierSource
    ) -> SIPRequest {
        precondition(method != .ack && method != .cancel, "ACK and CANCEL reuse the INVITE's CSeq (§13.2.2.4, §9.1)")
        let sequence = nextLocalSequence(ids: ids)
        return build(
            method, sequence: sequence, via: via, contact: contact, body: body, contentType: contentType,
            extra: extra)
    }

    /// §13.2.2.4: the ACK for a 2xx to the INVITE (or re-INVITE) with CSeq number
    /// `inviteSequence`; routed like any in-dialog request, method ACK, a new branch. Built and
    /// sent by the transaction user, directly to the transport.
    public func makeACK(
        inviteSequence: UInt32, via: SIPVia, body: [UInt8] = [], contentType: String? = nil,
        headers extra: [(SIPHeaderName, String)] = []
    ) -> SIPRequest {
        build(
            .ack, sequence: inviteSequence, via: via, contact: nil, body: body, contentType: contentType,
            extra: extra)
    }

    private func build(
        _ method: SIPMethod, sequence: UInt32, via: SIPVia, contact: SIPNameAddress?, body: [UInt8],
        contentType: String?, extra: [(SIPHeaderName, String)]
    ) -> SIPRequest {
        let routing = self.routing
        var headers = SIPHeaders()
        headers.add(.via, via.description)
        headers.add(.maxForwards, "70")
        for route in routing.routes { headers.add(.route, route.description) }
        headers.add(.from, localAddress.description)
        headers.add(.to, remoteAddress.description)
        headers.add(.callID, id.callID)
        headers.add(.cseq, SIPCSeq(sequence, method).description)
        if let contact { headers.add(.contact, contact.description) }
        for (name, value) in extra { headers.add(name, value) }
        var request = SIPRequest(method: method, uri: routing.requestURI, headers: headers)
        if !body.isEmpty || contentType != nil { request.setBody(body, contentType: contentType) }
        return request
    }
}

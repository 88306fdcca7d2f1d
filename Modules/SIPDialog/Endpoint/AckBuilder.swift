import SIPCore

/// Builds ACK requests (RFC 3261 §17.1.1.3 for non-2xx, §13.2.2.4 for 2xx).
package enum AckBuilder {
    /// §17.1.1.3: the ACK for a 300–699 is part of the INVITE transaction: same Request-URI,
    /// Call-ID, From, CSeq number and top Via (same branch) as the INVITE, To from the response,
    /// the INVITE's Route headers; no body.
    public static func ackForNonSuccess(request: SIPRequest, response: SIPResponse) -> SIPRequest {
        var headers = SIPHeaders()
        if let top = try? request.headers.topVia() { headers.add(.via, top.description) }
        headers.add(.maxForwards, "70")
        if let from = request.headers[.from] { headers.add(.from, from) }
        if let to = response.headers[.to] { headers.add(.to, to) }
        if let callID = request.headers.callID { headers.add(.callID, callID) }
        let sequence = (try? request.headers.cseq())?.sequence ?? 1
        headers.add(.cseq, SIPCSeq(sequence, .ack).description)
        for route in request.headers.values(.route) { headers.add(.route, route) }
        return SIPRequest(method: .ack, uri: request.uri, headers: headers)
    }
}

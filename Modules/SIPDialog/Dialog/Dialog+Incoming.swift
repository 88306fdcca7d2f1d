import SIPCore

extension Dialog {
    /// §12.2.2: the request belongs to this dialog (same Call-ID, To tag = local tag, From tag =
    /// remote tag). A request that names a dialog we do not have is answered 481 by the caller.
    public func matches(_ request: SIPRequest) -> Bool { DialogID(incoming: request) == id }

    /// §12.2.1.2: the response is to a request we sent in this dialog.
    public func matches(_ response: SIPResponse) -> Bool { DialogID(response: response) == id }

    /// §12.2.2: checks and records the CSeq of an incoming in-dialog request. An empty remote
    /// sequence takes the value; a lower one is refused (the caller answers 500, see
    /// ``outOfOrderResponse(to:)``). ACK and CANCEL carry the INVITE's number and are not checked.
    public mutating func acceptRemoteSequence(of request: SIPRequest) throws(DialogError) {
        let cseq = try Dialog.cseq(request.headers)
        if request.method == .ack || request.method == .cancel { return }
        if let last = remoteSequence, cseq.sequence < last {
            throw DialogError(.cseqOutOfOrder, "CSeq \(cseq.sequence) < \(last)")
        }
        setRemoteSequence(cseq.sequence)
    }

    /// §12.2.2: the 500 for a request whose CSeq is lower than the remote sequence number.
    public static func outOfOrderResponse(to request: SIPRequest) -> SIPResponse {
        SIPResponse(
            to: request, statusCode: 500, reasonPhrase: "CSeq Out of Order",
            headers: SIPHeaders([(.retryAfter, "1")]))
    }

    /// §12.2.2: the 481 for a request with a To tag that matches no dialog.
    public static func noDialogResponse(to request: SIPRequest) -> SIPResponse {
        SIPResponse(to: request, statusCode: 481)
    }
}

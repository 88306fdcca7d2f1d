import SIPCore

/// What a line that only registers (astra-register, `--keep` included) answers to the requests
/// the server sends it: a pure decision, one response per request, so every server transaction
/// the line opens gets its final response and ends (RFC 3261 §17.2: a transaction without one
/// lives for ever, and a swallowed INVITE leaves the caller hanging until its own timeout).
///
/// | Request | Answer | Why |
/// |---|---|---|
/// | any request with a To tag | 481 | §12.2.2: a registration-only line has no dialogs |
/// | INVITE | 480 + `Reason` | §21.4.18: reached, but this line takes no calls |
/// | OPTIONS | 200 + Allow/Accept/Supported | §11.2 (qualify); normally the endpoint's own answer |
/// | BYE, INFO, UPDATE, PRACK, NOTIFY | 481 | §15.1.2, RFC 6086 §4.2.2, RFC 3311 §5.2, RFC 3262 §3, RFC 6665 §4.1.3: they need a dialog or subscription we never made |
/// | SUBSCRIBE | 489 | RFC 6665 §3.2.1: no event package is supported |
/// | MESSAGE, REFER, others | 480 | the user is not available on this line |
///
/// A CANCEL is answered 200 by the endpoint (§9.2); the INVITE it cancels then gets 487 if it
/// is still pending (``cancelledInvite``). ACKs are never answered (§17.1.1.3).
package enum RegistrationOnlyAnswer {
    /// The final response's status, reason phrase and extra headers.
    public struct Answer: Sendable, Equatable {
        public var status: Int
        public var reason: String?
        public var headers: [Header]

        public struct Header: Sendable, Equatable {
            public var name: SIPHeaderName
            public var value: String
        }

        init(_ status: Int, reason: String? = nil, _ headers: [(SIPHeaderName, String)] = []) {
            self.status = status
            self.reason = reason
            self.headers = headers.map { Header(name: $0.0, value: $0.1) }
        }
    }

    /// The `Reason` (RFC 3326 syntax) on the 480 to an INVITE: says why, in every caller's log.
    public static let inviteReason = "SIP;cause=480;text=\"registration-only line: calls are not taken\""

    /// The answer to a new request that reached a registration-only line (not ACK or CANCEL).
    /// `settings` gives Allow/Accept/Supported for OPTIONS.
    public static func answer(to request: SIPRequest, settings: EndpointSettings = EndpointSettings()) -> Answer {
        let inDialog = ((try? request.headers.toTag()) ?? nil) != nil
        switch request.method {
        case .options:
            return Answer(
                200, [(.allow, settings.allow), (.accept, settings.accept), (.supported, settings.supported)])
        case _ where inDialog:
            return Answer(481)
        case .invite:
            return Answer(480, [("Reason", inviteReason)])
        case .bye, .info, .update, .prack, .notify:
            return Answer(481)
        case .subscribe:
            return Answer(489)
        default:
            return Answer(480)
        }
    }

    /// RFC 3261 §9.2: the INVITE a CANCEL matched gets 487 Request Terminated — a no-op when the
    /// INVITE already has its final response (its transaction ignores a second one).
    public static let cancelledInvite = Answer(487)
}

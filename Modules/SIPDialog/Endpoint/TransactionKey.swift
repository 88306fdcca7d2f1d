import SIPCore

/// The key that matches a message to its transaction (RFC 3261 §17.1.3, §17.2.3).
public struct TransactionKey: Sendable, Hashable, CustomStringConvertible {
    /// `branch` (with the magic cookie), or an RFC 2543 compound key without it.
    public var branch: String
    /// §17.2.3: the top Via sent-by must match too on the server side (empty on the client side).
    public var sentBy: String
    /// CSeq method, with ACK folded onto INVITE on the server side (§17.2.3).
    public var method: String

    public var description: String { "\(branch)|\(sentBy)|\(method)" }

    /// §17.1.3: a response matches the client transaction with the same top-Via branch and the
    /// same CSeq method.
    public static func client(response headers: SIPHeaders) -> TransactionKey? {
        guard let via = try? headers.topVia(), let branch = via.branch, let cseq = try? headers.cseq() else {
            return nil
        }
        return TransactionKey(branch: branch, sentBy: "", method: cseq.method.rawValue)
    }

    /// The key of a client transaction for the request we send.
    /// (Keyed on the CSeq method, as the response will be.)
    public static func client(request: SIPRequest) -> TransactionKey? {
        guard let via = try? request.headers.topVia(), let branch = via.branch else { return nil }
        let method = (try? request.headers.cseq())?.method ?? request.method
        return TransactionKey(branch: branch, sentBy: "", method: method.rawValue)
    }

    /// §17.2.3: requests match a server transaction by branch + sent-by + method (ACK → INVITE);
    /// without the `z9hG4bK` cookie, by the RFC 2543 fields (Request-URI, To tag, From tag,
    /// Call-ID, CSeq number, top Via). A CANCEL has its own transaction (same branch, method CANCEL).
    public static func server(request: SIPRequest) -> TransactionKey? {
        guard let via = try? request.headers.topVia(), let cseq = try? request.headers.cseq() else { return nil }
        let method = request.method == .ack ? SIPMethod.invite.rawValue : request.method.rawValue
        let sentBy = via.host.address.lowercased() + ":" + (via.port.map(String.init) ?? "")
        if via.hasMagicCookie, let branch = via.branch {
            return TransactionKey(branch: branch, sentBy: sentBy, method: method)
        }
        // RFC 2543 fallback (§17.2.3 second half). The To tag of an ACK is the one we sent in the
        // final response, which the INVITE did not carry: leave it out so both match.
        let toTag = request.method == .ack ? "" : (((try? request.headers.toTag()) ?? nil) ?? "")
        let fromTag = ((try? request.headers.fromTag()) ?? nil) ?? ""
        let compound = [request.rawURI, toTag, fromTag, request.headers.callID ?? "", String(cseq.sequence),
                        via.description].joined(separator: "|")
        return TransactionKey(branch: "2543:" + compound, sentBy: sentBy, method: method)
    }
}

import SIPCore

/// The identity of a dialog (RFC 3261 §12): Call-ID, local tag and remote tag, each seen from
/// this user agent.
public struct DialogID: Sendable, Hashable, CustomStringConvertible {
    public var callID: String
    public var localTag: String
    public var remoteTag: String

    public init(callID: String, localTag: String, remoteTag: String) {
        self.callID = callID
        self.localTag = localTag
        self.remoteTag = remoteTag
    }

    /// §12.2.2: the dialog an incoming request belongs to: local tag = To tag, remote = From tag.
    /// Nil when the request carries no To tag (it is not in a dialog) or lacks the headers.
    public init?(incoming request: SIPRequest) {
        guard let callID = request.headers.callID,
            let localTag = (try? request.headers.toTag()) ?? nil,
            let remoteTag = (try? request.headers.fromTag()) ?? nil
        else { return nil }
        self.init(callID: callID, localTag: localTag, remoteTag: remoteTag)
    }

    /// §12.1.2: the dialog a response to our request belongs to: local tag = From tag, remote =
    /// To tag. Nil when the response has no To tag.
    public init?(response: SIPResponse) {
        guard let callID = response.headers.callID,
            let localTag = (try? response.headers.fromTag()) ?? nil,
            let remoteTag = (try? response.headers.toTag()) ?? nil
        else { return nil }
        self.init(callID: callID, localTag: localTag, remoteTag: remoteTag)
    }

    public var description: String { "\(callID);local=\(localTag);remote=\(remoteTag)" }
}

import SIPCore

/// One dialog (RFC 3261 §12) as a value: its identity, the two CSeq spaces, the remote target and
/// the route set. It builds in-dialog requests (`Dialog+Requests.swift`) and checks incoming ones
/// (`Dialog+Incoming.swift`); the INVITE usage (``InviteUsage``) owns one per call leg.
public struct Dialog: Sendable, Hashable {
    public enum State: Sendable, Hashable {
        /// §12.1: created by a 101–199 with a To tag; may still be replaced by a 2xx or fail.
        case early
        /// §12.1: a 2xx created or confirmed it; the route set is now fixed (§12.2).
        case confirmed
    }

    /// Which side of the dialog-creating transaction this user agent was (§12.1.1, §12.1.2).
    public enum Role: Sendable, Hashable {
        case uac
        case uas
    }

    public private(set) var state: State
    public let role: Role
    public let id: DialogID
    /// Our From (as UAC) or To (as UAS) name-addr, with our tag (§12.1: local URI + local tag).
    public let localAddress: SIPNameAddress
    /// The peer's name-addr with its tag (§12.1: remote URI + remote tag).
    public let remoteAddress: SIPNameAddress
    /// §12.1: the local sequence number; nil until we send a request in the dialog (UAS, §12.1.1).
    public private(set) var localSequence: UInt32?
    /// §12.1: the remote sequence number; nil until the peer sends one (UAC, §12.1.2).
    public private(set) var remoteSequence: UInt32?
    /// §12.1: the peer's Contact URI; the Request-URI of in-dialog requests (§12.2.1.1).
    public private(set) var remoteTarget: SIPURI
    /// §12.1.1 / §12.1.2: the Record-Route values, in the order this side sends them as Route.
    public private(set) var routeSet: [SIPNameAddress]
    /// §12.1.1 / §12.1.2: the dialog-creating request had a `sips:` Request-URI.
    public let isSecure: Bool

    /// §12.1.2: the UAC's dialog from a 101–299 response with a To tag to `request` (an INVITE).
    /// The route set is the Record-Route list reversed; the remote target the response's Contact
    /// (a provisional without Contact keeps the Request-URI until a later response names one).
    public init(uac request: SIPRequest, response: SIPResponse) throws(DialogError) {
        guard (101...299).contains(response.statusCode) else {
            throw DialogError(.notDialogCreating, "status \(response.statusCode)")
        }
        let from = try Dialog.address(.from, request.headers)
        let to = try Dialog.address(.to, response.headers)
        guard let localTag = from.tag else { throw DialogError(.missingTag, "From of our request") }
        guard let remoteTag = to.tag else { throw DialogError(.missingTag, "To of the response") }
        guard let callID = request.headers.callID else { throw DialogError(.missingHeader, "Call-ID") }
        self.role = .uac
        self.state = response.statusCode >= 200 ? .confirmed : .early
        self.id = DialogID(callID: callID, localTag: localTag, remoteTag: remoteTag)
        self.localAddress = from
        self.remoteAddress = to
        self.localSequence = try Dialog.cseq(request.headers).sequence
        self.remoteSequence = nil
        let target = try Dialog.contactURI(response.headers)
        if target == nil && response.statusCode >= 200 {
            throw DialogError(.missingHeader, "Contact in a 2xx to INVITE (§13.3.1.4)")
        }
        self.remoteTarget = target ?? request.uri
        self.routeSet = try Dialog.recordRoutes(response.headers).reversed()
        self.isSecure = request.uri.scheme == .sips
    }

    /// §12.1.1: the UAS's dialog for `request` (an INVITE whose From has a tag), with our
    /// `localTag` in To. The route set is the Record-Route list as received; the remote target
    /// the request's Contact; the remote sequence its CSeq; the local sequence empty.
    public init(uas request: SIPRequest, localTag: String) throws(DialogError) {
        let from = try Dialog.address(.from, request.headers)
        var to = try Dialog.address(.to, request.headers)
        guard let remoteTag = from.tag else { throw DialogError(.missingTag, "From of the request") }
        guard let callID = request.headers.callID else { throw DialogError(.missingHeader, "Call-ID") }
        guard let target = try Dialog.contactURI(request.headers) else {
            throw DialogError(.missingHeader, "Contact in a dialog-creating request (§8.1.1.8)")
        }
        to.tag = localTag
        self.role = .uas
        self.state = .early
        self.id = DialogID(callID: callID, localTag: localTag, remoteTag: remoteTag)
        self.localAddress = to
        self.remoteAddress = from
        self.localSequence = nil
        self.remoteSequence = try Dialog.cseq(request.headers).sequence
        self.remoteTarget = target
        self.routeSet = try Dialog.recordRoutes(request.headers)
        self.isSecure = request.uri.scheme == .sips
    }

    /// §12.1.1: the UAS sent a 2xx; the dialog is confirmed.
    public mutating func confirm() { state = .confirmed }

    /// §13.2.2.4: a 2xx for this early dialog arrived (UAC): confirm it, recompute the route set
    /// from the 2xx and take its Contact as the remote target.
    public mutating func confirm(with response: SIPResponse) throws(DialogError) {
        guard role == .uac, (200...299).contains(response.statusCode) else {
            throw DialogError(.notDialogCreating, "status \(response.statusCode)")
        }
        if state == .early { routeSet = try Dialog.recordRoutes(response.headers).reversed() }
        try refreshRemoteTarget(from: response.headers)
        state = .confirmed
    }

    /// §12.1.2 / §12.2: a provisional for an early dialog (UAC) may carry a (new) Contact.
    public mutating func update(withProvisional response: SIPResponse) throws(DialogError) {
        guard state == .early else { return }
        try refreshRemoteTarget(from: response.headers)
    }

    /// §12.2 (target refresh: re-INVITE, UPDATE, and their 2xx): the Contact, if present,
    /// replaces the remote target. The route set never changes once confirmed.
    public mutating func refreshRemoteTarget(from headers: SIPHeaders) throws(DialogError) {
        if let uri = try Dialog.contactURI(headers) { remoteTarget = uri }
    }

    /// §12.2.1.1: the CSeq number for the next request we send (not for ACK or CANCEL); the
    /// first one of a UAS dialog comes from `ids`.
    public mutating func nextLocalSequence(ids: some IdentifierSource) -> UInt32 {
        let next = localSequence.map { $0 &+ 1 } ?? ids.initialCSeq()
        localSequence = next
        return next
    }

    /// Records a remote CSeq accepted by ``acceptRemoteSequence(of:)``.
    mutating func setRemoteSequence(_ value: UInt32) { remoteSequence = value }

    // MARK: - Header helpers

    static func address(_ name: SIPHeaderName, _ headers: SIPHeaders) throws(DialogError) -> SIPNameAddress {
        let value: SIPNameAddress?
        do {
            value = name == .from ? try headers.from() : try headers.to()
        } catch {
            throw DialogError(.invalidHeader, "\(name): \(error)")
        }
        guard let value else { throw DialogError(.missingHeader, name.description) }
        return value
    }

    static func cseq(_ headers: SIPHeaders) throws(DialogError) -> SIPCSeq {
        let value: SIPCSeq?
        do {
            value = try headers.cseq()
        } catch {
            throw DialogError(.invalidHeader, "CSeq: \(error)")
        }
        guard let value else { throw DialogError(.missingHeader, "CSeq") }
        return value
    }

    static func contactURI(_ headers: SIPHeaders) throws(DialogError) -> SIPURI? {
        do {
            return try headers.contacts().first?.address?.uri
        } catch {
            throw DialogError(.invalidHeader, "Contact: \(error)")
        }
    }

    static func recordRoutes(_ headers: SIPHeaders) throws(DialogError) -> [SIPNameAddress] {
        do {
            return try headers.recordRoutes()
        } catch {
            throw DialogError(.invalidHeader, "Record-Route: \(error)")
        }
    }
}

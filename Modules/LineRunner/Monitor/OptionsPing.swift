import SIPCore
import SIPDialog

/// The OPTIONS requests a monitor sends to a line's registrar (RFC 3261 §11.1): out of any
/// dialog, Request-URI and To the registrar (`sip:domain`), From the line's address of record
/// with a tag, one Call-ID for the line's pings and a CSeq that grows by one per ping (§8.1.1.5),
/// a new branch each (§8.1.1.7), the Via of the flow's current binding with `rport`. Pure: the
/// IDs come from the injected source.
public struct OptionsPing: Sendable {
    public let aor: SIPURI
    public let registrar: SIPURI
    public let userAgent: String
    private let callID: String
    private let from: String
    private let to: String
    private var cseq: UInt32

    public init(aor: SIPURI, registrar: SIPURI, userAgent: String, ids: some IdentifierSource) {
        self.aor = aor
        self.registrar = registrar
        self.userAgent = userAgent
        callID = ids.callID()
        cseq = ids.initialCSeq()
        to = SIPNameAddress(uri: registrar).description
        from = SIPNameAddress(uri: aor).description + ([SIPParameter(name: "tag", value: ids.tag())] as SIPParameters).serialized
    }

    /// The next OPTIONS on the flow of `binding`.
    public mutating func next(binding: LocalBinding, ids: some IdentifierSource) -> SIPRequest {
        cseq &+= 1
        var headers = SIPHeaders()
        headers.add(.via, binding.via(branch: ids.branch()).description)
        headers.add(.maxForwards, "70")
        headers.add(.from, from)
        headers.add(.to, to)
        headers.add(.callID, callID)
        headers.add(.cseq, "\(cseq) OPTIONS")
        headers.add(.contact, SIPNameAddress(uri: binding.contactURI(user: aor.user)).description)
        headers.add(.accept, "application/sdp")
        headers.add(.userAgent, userAgent)
        return SIPRequest(method: .options, uri: registrar, headers: headers)
    }
}

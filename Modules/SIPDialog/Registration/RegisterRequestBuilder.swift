import SIPCore

/// Builds the REGISTER requests of one registration (RFC 3261 §10.2): one Call-ID and From tag
/// for the whole registration (§10.2.4 SHOULD), a CSeq that grows by one per request, a new
/// branch per request.
struct RegisterRequestBuilder: Sendable {
    let aor: SIPURI
    let registrar: SIPURI
    let displayName: String?
    let settings: RegistrationSettings
    let callID: String
    let fromTag: String
    var cseq: UInt32
    /// The Via branch of the last request built (its client transaction's key, §17.1.3).
    var lastBranch = ""
    /// Header values that are the same in every REGISTER of this registration, formatted once.
    let fromValue: String
    let toValue: String
    /// `registrar.description`: the Request-URI text (and the digest `uri`), formatted once.
    let registrarText: String
    /// The byte template of ``nextWire(binding:expires:ids:authorizationLines:)``.
    var wire: RegisterWireTemplate?
    /// The Contact value for the last binding and expiry asked for (a refresh reuses it), and
    /// its URI (what a 2xx must list for our binding, §10.2.4).
    private var contactCache: (binding: LocalBinding, expires: UInt32, value: String, uri: SIPURI)?
    /// The Via value up to the branch for the last binding (`SIP/2.0/UDP h:p;rport;branch=`).
    var viaCache: (binding: LocalBinding, prefix: String)?

    init(aor: SIPURI, registrar: SIPURI, displayName: String?, settings: RegistrationSettings, ids: some IdentifierSource) {
        self.aor = aor
        self.registrar = registrar
        self.displayName = displayName
        self.settings = settings
        self.callID = ids.callID()
        self.fromTag = ids.tag()
        self.cseq = ids.initialCSeq()
        // From is To plus its tag (a name-addr's parameters follow its `>`): one URI formatting.
        toValue = SIPNameAddress(displayName: displayName, uri: aor).description
        fromValue = toValue + ([SIPParameter(name: "tag", value: fromTag)] as SIPParameters).serialized
        registrarText = registrar.description
    }

    private mutating func contactValue(binding: LocalBinding, expires: UInt32) -> String {
        if let cached = contactCache, cached.expires == expires, cached.binding == binding { return cached.value }
        let contact = contact(binding: binding, expires: expires)
        let value = contact.description
        contactCache = (binding, expires, value, contact.uri)
        return value
    }

    /// The Contact URI of the last REGISTER built, if it was for `binding`.
    func lastContactURI(for binding: LocalBinding) -> SIPURI? {
        if let cached = contactCache, cached.binding == binding { return cached.uri }
        if let wire, wire.binding == binding { return wire.contactURI }
        return nil
    }

    /// The top Via for `binding` with `branch`: the binding's Via (RFC 3581 `rport`, §8.1.1.7
    /// branch), formatted once per binding and completed with each new branch.
    private mutating func viaValue(binding: LocalBinding, branch: String) -> String {
        if let cached = viaCache, cached.binding == binding { return cached.prefix + branch }
        guard let prefix = Self.viaPrefix(binding) else { return binding.via(branch: branch).description }
        viaCache = (binding, prefix)
        return prefix + branch
    }

    /// The binding's Via value up to its branch, when the branch is its last part.
    static func viaPrefix(_ binding: LocalBinding) -> String? {
        let marker = "z9hG4bKastraviamarker"
        let full = binding.via(branch: marker).description
        guard full.hasSuffix("branch=" + marker) else { return nil }
        return String(full.dropLast(marker.count))
    }

    /// Our Contact for `binding`, with RFC 5626 instance/reg-id and RFC 8599 push parameters.
    func contact(binding: LocalBinding, expires: UInt32) -> SIPNameAddress {
        var uriParameters = SIPParameters()
        if let push = settings.push {
            uriParameters.set("pn-provider", push.provider)
            uriParameters.set("pn-prid", push.prid)
            if let param = push.param { uriParameters.set("pn-param", param) }
        }
        var parameters = SIPParameters()
        if let instance = settings.instanceID {
            parameters.set("+sip.instance", "\"<\(instance)>\"")
            if let regID = settings.regID { parameters.set("reg-id", String(regID)) }
        }
        parameters.set("expires", String(expires))
        return SIPNameAddress(uri: binding.contactURI(user: aor.user, extra: uriParameters), parameters: parameters)
    }

    /// The next REGISTER: new branch, CSeq + 1, the given Authorization fields.
    mutating func next(binding: LocalBinding, expires: UInt32, ids: some IdentifierSource,
                       authorization: [DigestHeaderField]) -> SIPRequest {
        cseq &+= 1
        lastBranch = ids.branch()
        var headers = SIPHeaders()
        headers.reserveCapacity(bytes: 1024, count: 16)
        headers.add(.via, viaValue(binding: binding, branch: lastBranch))
        headers.add(.maxForwards, "70")
        headers.add(.from, fromValue)
        headers.add(.to, toValue)
        headers.add(.callID, callID)
        headers.add(.cseq, "\(cseq) REGISTER")
        headers.add(.contact, contactValue(binding: binding, expires: expires))
        headers.add(.expires, String(expires))
        if settings.instanceID != nil && settings.regID != nil {
            headers.add(.supported, "path, outbound")
        } else {
            headers.add(.supported, "path")
        }
        headers.add(.allow, "INVITE, ACK, CANCEL, BYE, OPTIONS, INFO, UPDATE, NOTIFY")
        headers.add(.userAgent, settings.userAgent)
        for field in authorization { headers.add(SIPHeaderName(field.name), field.value) }
        return SIPRequest(method: .register, uri: registrar, headers: headers)
    }
}

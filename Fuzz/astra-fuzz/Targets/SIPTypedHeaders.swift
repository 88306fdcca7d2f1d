import SIPCore

/// What both SIP targets do with a parsed message: every typed accessor, and the round trips a
/// user agent relies on when it writes a value it read back into a new message (a Contact into a
/// REGISTER, a Record-Route into a route set, a Via into a response).
enum SIPTypedHeaders {
    /// Touches every typed accessor; errors are fine, traps are not. On a parsed message, every
    /// hot-header accessor answers through the parse's index exactly what the line scan answers.
    static func exercise(_ message: SIPMessage) {
        let h = message.headers
        checkIndexAgreesWithScan(h)
        _ = try? h.vias()
        _ = try? h.topVia()?.rport
        _ = try? h.from()?.description
        _ = try? h.to()?.tag
        _ = try? h.cseq()
        _ = try? h.contacts().map { ($0.expires, $0.instance, $0.regID, $0.pushPRID, $0.description) }
        _ = try? h.routes().map(\.uri.description)
        _ = try? h.recordRoutes()
        _ = try? h.maxForwards()
        _ = try? h.contentLength()
        _ = try? h.expires()
        _ = try? h.minExpires()
        _ = h.allow
        _ = h.supported
        _ = h.callID
        _ = h.responseVia
        for field in h { _ = (field.name, field.value, field.rawValue) }
        if case .request(let r) = message { _ = (r.uri.description, r.rawURI) }
        if case .response(let r) = message { _ = r.reasonPhrase }
    }

    /// The ``HeaderIndex`` recorded at parse time changes no answer: each accessor it serves
    /// returns the same value, or fails with the same error, as the scan of the lines.
    static func checkIndexAgreesWithScan(_ h: SIPHeaders) {
        guard h.parsedIndex != nil else { return }
        let s = h.withoutIndex
        func same<T: Equatable>(_ what: String, _ f: (SIPHeaders) throws(SIPParseError) -> T) {
            func run(_ x: SIPHeaders) -> Result<T, SIPParseError> {
                do throws(SIPParseError) { return .success(try f(x)) } catch { return .failure(error) }
            }
            let (a, b) = (run(h), run(s))
            invariant(a == b, "\(what) through the parse's index \(a) differs from the line scan \(b)")
        }
        same("topVia") { (x) throws(SIPParseError) in try x.topVia() }
        same("from") { (x) throws(SIPParseError) in try x.from() }
        same("to") { (x) throws(SIPParseError) in try x.to() }
        same("fromTag") { (x) throws(SIPParseError) in try x.fromTag() }
        same("toTag") { (x) throws(SIPParseError) in try x.toTag() }
        same("callID") { $0.callID }
        same("cseq") { (x) throws(SIPParseError) in try x.cseq() }
        same("contacts") { (x) throws(SIPParseError) in try x.contacts() }
        same("maxForwards") { (x) throws(SIPParseError) in try x.maxForwards() }
        same("contentLength") { (x) throws(SIPParseError) in try x.contentLength() }
        same("expires") { (x) throws(SIPParseError) in try x.expires() }
        same("contentType") { $0.contentType }
        let branch = (try? h.topVia())??.branch
        invariant(h.topViaBranch == branch, "topViaBranch \(h.topViaBranch ?? "nil") is not the top Via's \(branch ?? "nil")")
    }

    /// Every typed value re-serialized and read back gives the same value (RFC 3261 §20: the
    /// canonical forms our serializers write must parse to what was read).
    static func checkRoundTrips(_ message: SIPMessage) {
        let h = message.headers
        if let vias = try? h.vias() {
            for via in vias {
                let again = try? SIPHeaders([(.via, via.description)]).vias()
                invariant(
                    again == [via], "Via \(via.description) does not read back as itself: \(String(describing: again))")
            }
        }
        for name in [SIPHeaderName.from, .to] {
            guard let address = try? (name == .from ? h.from() : h.to()) else { continue }
            checkAddress(address, as: name)
        }
        for address in (try? h.routes()) ?? [] { checkAddress(address, as: .route) }
        for address in (try? h.recordRoutes()) ?? [] { checkAddress(address, as: .recordRoute) }
        if let contacts = try? h.contacts() {
            for contact in contacts {
                let again = try? SIPHeaders([(.contact, contact.description)]).contacts()
                invariant(
                    again == [contact],
                    "Contact \(contact.description) does not read back as itself: \(String(describing: again))")
            }
        }
        if let cseq = try? h.cseq() {
            let again = try? SIPHeaders([(.cseq, cseq.description)]).cseq()
            invariant(again == cseq, "CSeq \(cseq.description) does not read back as itself")
        }
        if case .request(let r) = message { checkURI(r.uri) }
    }

    static func checkAddress(_ address: SIPNameAddress, as name: SIPHeaderName) {
        checkURI(address.uri)
        let again = try? SIPHeaders([(name, address.description)]).addresses(name)
        invariant(
            again == [address],
            "\(name.canonicalName) \(address.description) does not read back as itself: \(String(describing: again))")
    }

    /// A URI's canonical text parses to the same URI, and every URI is equivalent to itself
    /// (RFC 3261 §19.1.4).
    static func checkURI(_ uri: SIPURI) {
        invariant(uri.isEquivalent(to: uri), "URI \(uri.description) is not equivalent to itself")
        let again = try? SIPURI(parsing: uri.description)
        invariant(again == uri, "URI \(uri.description) does not read back as itself: \(String(describing: again))")
    }
}

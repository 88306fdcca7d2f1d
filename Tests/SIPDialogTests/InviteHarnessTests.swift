import SIPCore
import Testing

@testable import SIPDialog

/// Drives an ``InviteUsage`` in virtual time and records what it sent (CONVENTIONS.md §9): the
/// shell's side of the contract, without transactions or sockets.
struct InviteHarness {
    var usage: InviteUsage
    private(set) var now: Duration = .zero
    private(set) var deadlines: [InviteUsage.Timer: Duration] = [:]
    private(set) var requests: [SIPRequest] = []
    private(set) var responses: [SIPResponse] = []
    private(set) var responseTimes: [Duration] = []
    private(set) var acks: [SIPRequest] = []
    private(set) var events: [InviteEvent] = []

    init(_ usage: InviteUsage) { self.usage = usage }

    mutating func apply(_ actions: [InviteUsage.Action]) {
        for action in actions {
            switch action {
            case .sendRequest(let r): requests.append(r)
            case .sendResponse(let r, let request):
                #expect(r.headers.callID == request.headers.callID)
                #expect(try! r.headers.cseq() == request.headers.cseq())
                #expect(try! r.headers.topVia() == request.headers.topVia())
                responses.append(r)
                responseTimes.append(now)
            case .sendACK(let r): acks.append(r)
            case .startTimer(let t, let d): deadlines[t] = now + d
            case .cancelTimer(let t): deadlines[t] = nil
            case .event(let e): events.append(e)
            }
        }
    }

    mutating func start() { apply(usage.start()) }
    mutating func receive(_ response: SIPResponse) { apply(usage.receive(response)) }
    mutating func receive(_ request: SIPRequest) { apply(usage.receive(request)) }
    mutating func hangUp() { apply(usage.hangUp()) }

    /// Fires every timer due up to `limit`, in deadline order, then moves `now` to `limit`.
    mutating func run(until limit: Duration) {
        while let (timer, deadline) = deadlines.min(by: {
            $0.value < $1.value || ($0.value == $1.value && $0.key.rawValue < $1.key.rawValue)
        }),
            deadline <= limit
        {
            deadlines[timer] = nil
            now = deadline
            apply(usage.timerFired(timer))
        }
        now = max(now, limit)
    }

    mutating func advance(by duration: Duration) { run(until: now + duration) }

    var lastRequest: SIPRequest? { requests.last }
    func requests(_ method: SIPMethod) -> [SIPRequest] { requests.filter { $0.method == method } }
    var ended: InviteEndReason? {
        for case .ended(let reason) in events { return reason }
        return nil
    }
}

/// The far end: builds what a peer (or a proxy) would send, as parsed wire messages.
enum InvitePeer {
    static let sdpOffer = SessionBody(
        text:
            "v=0\r\no=alice 1 1 IN IP4 192.0.2.10\r\ns=-\r\nc=IN IP4 192.0.2.10\r\nt=0 0\r\nm=audio 4000 RTP/AVP 0\r\na=sendrecv\r\n"
    )
    static let sdpAnswer = SessionBody(
        text:
            "v=0\r\no=bob 2 2 IN IP4 192.0.2.20\r\ns=-\r\nc=IN IP4 192.0.2.20\r\nt=0 0\r\nm=audio 5000 RTP/AVP 0\r\na=sendrecv\r\n"
    )
    static let holdOffer = SessionBody(
        text:
            "v=0\r\no=alice 1 2 IN IP4 192.0.2.10\r\ns=-\r\nc=IN IP4 192.0.2.10\r\nt=0 0\r\nm=audio 4000 RTP/AVP 0\r\na=sendonly\r\n"
    )

    static let kamailioRecordRoute =
        "<sip:127.0.0.1:5060;transport=tcp;r2=on;lr>, <sip:127.0.0.1:8089;transport=ws;r2=on;lr>"

    /// Reparses so tests see exactly what crossed the wire.
    static func wire(_ response: SIPResponse) -> SIPResponse {
        try! SIPMessage(parsing: response.serialized()).response!
    }
    static func wire(_ request: SIPRequest) -> SIPRequest { try! SIPMessage(parsing: request.serialized()).request! }

    /// The callee's (or a fork's) response to our request.
    static func reply(
        to request: SIPRequest, _ status: Int, tag: String? = "bob1", body: SessionBody? = nil,
        contact: String? = "<sip:1002@192.0.2.20:5062;transport=tcp>", recordRoute: String? = nil,
        extra: [(SIPHeaderName, String)] = []
    ) -> SIPResponse {
        var headers = SIPHeaders()
        if let contact, status > 100, status < 300 { headers.add(.contact, contact) }
        for (n, v) in extra { headers.add(n, v) }
        var response = SIPResponse(to: request, statusCode: status, toTag: status == 100 ? nil : tag, headers: headers)
        if let recordRoute, status > 100, status < 300 { response.headers.add(.recordRoute, recordRoute) }
        if let body { response.setBody(body.bytes, contentType: body.contentType) }
        return wire(response)
    }

    /// An INVITE from the caller, as a UAS receives it (through a Kamailio-style proxy).
    static func invite(extra: [String] = [], body: SessionBody? = sdpOffer, recordRoute: String? = kamailioRecordRoute)
        -> SIPRequest
    {
        var text =
            "INVITE sip:1002@192.0.2.20:5062;transport=tcp SIP/2.0\r\n"
            + "Via: SIP/2.0/TCP 127.0.0.1:5060;branch=z9hG4bKproxy1\r\n"
            + "Via: SIP/2.0/WSS df7jal23ls0d.invalid;branch=z9hG4bKcaller1;rport\r\n"
            + "Max-Forwards: 69\r\n"
        if let recordRoute { text += "Record-Route: \(recordRoute)\r\n" }
        text +=
            "From: \"Alice\" <sip:1001@astra.test>;tag=alice1\r\n"
            + "To: <sip:1002@astra.test>\r\n"
            + "Call-ID: incoming-call-1\r\n"
            + "CSeq: 20 INVITE\r\n"
            + "Contact: <sip:1001@df7jal23ls0d.invalid;transport=ws>\r\n"
            + "Allow: INVITE, ACK, CANCEL, BYE, OPTIONS, INFO, UPDATE\r\n"
        for line in extra { text += line + "\r\n" }
        if let body { text += "Content-Type: \(body.contentType)\r\n" }
        text += "Content-Length: \(body?.bytes.count ?? 0)\r\n\r\n"
        return try! SIPMessage(parsing: Array(text.utf8) + (body?.bytes ?? [])).request!
    }

    /// A request from the caller inside the dialog the UAS created (`localTag` = the UAS's tag).
    static func inDialog(
        _ method: SIPMethod, cseq: UInt32, localTag: String, callID: String = "incoming-call-1",
        remoteTag: String = "alice1", body: SessionBody? = nil, extra: [String] = []
    ) -> SIPRequest {
        var text =
            "\(method) sip:1002@192.0.2.20:5062;transport=tcp SIP/2.0\r\n"
            + "Via: SIP/2.0/TCP 127.0.0.1:5060;branch=z9hG4bK\(method)\(cseq)\r\n"
            + "Max-Forwards: 69\r\n"
            + "From: \"Alice\" <sip:1001@astra.test>;tag=\(remoteTag)\r\n"
            + "To: <sip:1002@astra.test>;tag=\(localTag)\r\n"
            + "Call-ID: \(callID)\r\n"
            + "CSeq: \(cseq) \(method)\r\n"
        if method == .invite || method == .update {
            text += "Contact: <sip:1001@df7jal23ls0d.invalid;transport=ws>\r\n"
        }
        for line in extra { text += line + "\r\n" }
        if let body { text += "Content-Type: \(body.contentType)\r\n" }
        text += "Content-Length: \(body?.bytes.count ?? 0)\r\n\r\n"
        return try! SIPMessage(parsing: Array(text.utf8) + (body?.bytes ?? [])).request!
    }

    /// A request from the callee inside the UAC's confirmed dialog.
    static func fromCallee(
        _ method: SIPMethod, cseq: UInt32, to uac: InviteUsage, body: SessionBody? = nil,
        extra: [String] = []
    ) -> SIPRequest {
        let dialog = uac.dialog!
        return inDialog(
            method, cseq: cseq, localTag: dialog.id.localTag, callID: dialog.id.callID,
            remoteTag: dialog.id.remoteTag, body: body, extra: extra)
    }
}

enum InviteSetup {
    static let wss = LocalBinding(transport: .wss, host: "df7jal23ls0d.invalid", port: nil)
    static let tcp = LocalBinding(transport: .tcp, host: "192.0.2.20", port: 5062)
    static let alice = SIPNameAddress(displayName: "Alice", uri: try! SIPURI(parsing: "sip:1001@astra.test"))
    static let bob = try! SIPURI(parsing: "sip:1002@astra.test")

    static func caller(
        seed: UInt64 = 42, credentials: DigestCredentials? = nil,
        configure: (inout InviteSettings) -> Void = { _ in }
    ) -> InviteHarness {
        var settings = InviteSettings()
        configure(&settings)
        return InviteHarness(
            InviteUsage(
                calling: bob, from: alice, offer: InvitePeer.sdpOffer, binding: wss,
                credentials: credentials, settings: settings,
                ids: SeededIdentifierSource(seed: seed)))
    }

    static func callee(
        _ invite: SIPRequest = InvitePeer.invite(), seed: UInt64 = 43,
        configure: (inout InviteSettings) -> Void = { _ in }
    ) -> InviteHarness {
        var settings = InviteSettings()
        configure(&settings)
        return InviteHarness(
            try! InviteUsage(
                incoming: invite, binding: tcp, settings: settings,
                ids: SeededIdentifierSource(seed: seed)))
    }

    /// A caller whose INVITE was answered 200 by `bob1` (Allow as given), ACKed.
    static func answeredCaller(
        allow: String? = "INVITE, ACK, BYE, CANCEL, OPTIONS, UPDATE",
        extra: [(SIPHeaderName, String)] = [],
        configure: (inout InviteSettings) -> Void = { _ in }
    ) -> InviteHarness {
        var h = caller(configure: configure)
        h.start()
        let invite = h.requests[0]
        var headers = extra
        if let allow { headers.append((.allow, allow)) }
        h.receive(InvitePeer.reply(to: invite, 200, body: InvitePeer.sdpAnswer, extra: headers))
        return h
    }

    /// A callee that answered and got its ACK.
    static func confirmedCallee(
        _ invite: SIPRequest = InvitePeer.invite(),
        configure: (inout InviteSettings) -> Void = { _ in }
    ) -> InviteHarness {
        var h = callee(invite, configure: configure)
        h.start()
        h.apply(try! h.usage.answer(InvitePeer.sdpAnswer))
        h.receive(InvitePeer.inDialog(.ack, cseq: 20, localTag: h.usage.dialog!.id.localTag))
        return h
    }
}

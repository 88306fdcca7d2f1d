import SIPCore
import Testing

@testable import SIPDialog

/// RFC 3261 §12: dialog creation, route sets, routing, target refresh, CSeq rules, matching.
@Suite struct DialogTests {
    static let kamailioRecordRoute =
        "<sip:127.0.0.1:5060;transport=tcp;r2=on;lr>, <sip:127.0.0.1:8089;transport=ws;r2=on;lr>"

    static func invite(
        uri: String = "sip:1002@astra.test", recordRoute: String? = nil,
        contact: String? = "<sip:1001@df7jal23ls0d.invalid;transport=ws>"
    ) -> SIPRequest {
        var text =
            "INVITE \(uri) SIP/2.0\r\n"
            + "Via: SIP/2.0/WSS df7jal23ls0d.invalid;branch=z9hG4bKaaaa;rport\r\n"
            + "Max-Forwards: 70\r\n"
            + "From: \"Alice\" <sip:1001@astra.test>;tag=alicetag\r\n"
            + "To: <sip:1002@astra.test>\r\n"
            + "Call-ID: call-1@astra.test\r\n"
            + "CSeq: 10 INVITE\r\n"
        if let contact { text += "Contact: \(contact)\r\n" }
        if let recordRoute { text += "Record-Route: \(recordRoute)\r\n" }
        text += "Content-Length: 0\r\n\r\n"
        return try! SIPMessage(parsing: text).request!
    }

    static func response(
        _ request: SIPRequest, _ status: Int, tag: String? = "bobtag",
        contact: String? = "<sip:1002@192.0.2.20:5060>", recordRoute: String? = nil
    ) -> SIPResponse {
        var extra = SIPHeaders()
        if let contact { extra.add(.contact, contact) }
        var response = SIPResponse(to: request, statusCode: status, toTag: tag, headers: extra)
        if let recordRoute {
            _ = response.headers.remove(.recordRoute)
            response.headers.add(.recordRoute, recordRoute)
        }
        return response
    }

    let ids = SeededIdentifierSource(seed: 12)
    let via = SIPVia(transport: .wss, host: "df7jal23ls0d.invalid", branch: "z9hG4bKnew")

    @Test func uacDialogFromProvisionalWithTagIsEarlyThenConfirmedBy2xx() throws {
        let invite = Self.invite()
        var dialog = try Dialog(uac: invite, response: Self.response(invite, 180))
        #expect(dialog.state == .early)
        #expect(dialog.role == .uac)
        #expect(dialog.id == DialogID(callID: "call-1@astra.test", localTag: "alicetag", remoteTag: "bobtag"))
        #expect(dialog.localSequence == 10)
        #expect(dialog.remoteSequence == nil)
        try dialog.confirm(with: Self.response(invite, 200, contact: "<sip:1002@192.0.2.99:5070>"))
        #expect(dialog.state == .confirmed)
        #expect(dialog.remoteTarget.description == "sip:1002@192.0.2.99:5070")
    }

    @Test(arguments: [100, 300, 486, 603])
    func onlyTaggedOneXXOrTwoXXCreateDialogs(status: Int) throws {
        let invite = Self.invite()
        #expect(throws: DialogError(.notDialogCreating)) {
            try Dialog(uac: invite, response: Self.response(invite, status))
        }
    }

    /// §12.1.2: a provisional without Contact keeps the Request-URI as target until a later
    /// provisional or the 2xx names one; the route set is recomputed from the 2xx (§13.2.2.4).
    @Test func earlyDialogTargetAndRouteSetFollowLaterResponses() throws {
        let invite = Self.invite()
        var dialog = try Dialog(
            uac: invite,
            response: Self.response(
                invite, 180, contact: nil,
                recordRoute: "<sip:old.test;lr>"))
        #expect(dialog.remoteTarget.description == "sip:1002@astra.test")
        try dialog.update(withProvisional: Self.response(invite, 183, contact: "<sip:1002@192.0.2.7>"))
        #expect(dialog.remoteTarget.description == "sip:1002@192.0.2.7")
        try dialog.confirm(with: Self.response(invite, 200, recordRoute: "<sip:new.test;lr>"))
        #expect(dialog.routeSet.map(\.uri.description) == ["sip:new.test;lr"])
        #expect(dialog.remoteTarget.description == "sip:1002@192.0.2.20:5060")
    }

    @Test func responseWithoutToTagCannotCreateDialog() {
        let invite = Self.invite()
        #expect(throws: DialogError(.missingTag)) {
            try Dialog(uac: invite, response: Self.response(invite, 180, tag: nil))
        }
    }

    @Test func twoXXWithoutContactIsRefused() {
        let invite = Self.invite()
        #expect(throws: DialogError(.missingHeader)) {
            try Dialog(uac: invite, response: Self.response(invite, 200, contact: nil))
        }
    }

    /// §12.1.2 (UAC, reversed) and §12.1.1 (UAS, as received) with Kamailio's double Record-Route.
    @Test func kamailioDoubleRecordRouteRouteSets() throws {
        let invite = Self.invite(recordRoute: Self.kamailioRecordRoute)
        let uac = try Dialog(uac: invite, response: Self.response(invite, 200, recordRoute: Self.kamailioRecordRoute))
        #expect(
            uac.routeSet.map(\.uri.description) == [
                "sip:127.0.0.1:8089;transport=ws;r2=on;lr", "sip:127.0.0.1:5060;transport=tcp;r2=on;lr",
            ])
        let uas = try Dialog(uas: invite, localTag: "bobtag")
        #expect(
            uas.routeSet.map(\.uri.description) == [
                "sip:127.0.0.1:5060;transport=tcp;r2=on;lr", "sip:127.0.0.1:8089;transport=ws;r2=on;lr",
            ])
        // Loose routing: the remote target stays the Request-URI, the route set becomes Route.
        var dialog = uac
        let bye = dialog.makeRequest(.bye, via: via, contact: nil, ids: ids)
        #expect(bye.uri.description == "sip:1002@192.0.2.20:5060")
        #expect(
            bye.headers.values(.route) == [
                "<sip:127.0.0.1:8089;transport=ws;r2=on;lr>", "<sip:127.0.0.1:5060;transport=tcp;r2=on;lr>",
            ])
    }

    struct RoutingCase: Sendable, CustomStringConvertible {
        let name: String
        let recordRoute: String?
        let requestURI: String
        let routes: [String]
        var description: String { name }
    }

    static let routingCases: [RoutingCase] = [
        RoutingCase(name: "no route set", recordRoute: nil, requestURI: "sip:1002@192.0.2.20:5060", routes: []),
        RoutingCase(
            name: "loose", recordRoute: "<sip:p2.test;lr>, <sip:p1.test;lr>",
            requestURI: "sip:1002@192.0.2.20:5060", routes: ["<sip:p1.test;lr>", "<sip:p2.test;lr>"]),
        RoutingCase(
            name: "strict first hop", recordRoute: "<sip:p2.test;lr>, <sip:p1.test;maddr=10.0.0.1>",
            requestURI: "sip:p1.test;maddr=10.0.0.1",
            routes: ["<sip:p2.test;lr>", "<sip:1002@192.0.2.20:5060>"]),
        RoutingCase(
            name: "strict only", recordRoute: "<sip:p1.test?x=y>",
            requestURI: "sip:p1.test", routes: ["<sip:1002@192.0.2.20:5060>"]),
    ]

    /// §12.2.1.1: loose vs strict routing, table-driven (UAC route sets are reversed).
    @Test(arguments: routingCases)
    func routing(_ c: RoutingCase) throws {
        let invite = Self.invite()
        var dialog = try Dialog(uac: invite, response: Self.response(invite, 200, recordRoute: c.recordRoute))
        let info = dialog.makeRequest(
            .info, via: via, contact: nil, body: Array("x".utf8),
            contentType: "application/dtmf-relay", ids: ids)
        #expect(info.uri.description == c.requestURI)
        #expect(info.headers.values(.route) == c.routes)
        #expect(info.headers.contentType == "application/dtmf-relay")
    }

    @Test func inDialogRequestsIncrementLocalCSeqAndAckReusesInviteNumber() throws {
        let invite = Self.invite()
        var dialog = try Dialog(uac: invite, response: Self.response(invite, 200))
        let ack = dialog.makeACK(inviteSequence: 10, via: via)
        #expect(try ack.headers.cseq() == SIPCSeq(10, .ack))
        #expect(dialog.localSequence == 10)
        let methods: [SIPMethod] = [.invite, .info, .options, .update, .bye]
        for (offset, method) in methods.enumerated() {
            let request = dialog.makeRequest(method, via: via, contact: nil, ids: ids)
            #expect(try request.headers.cseq() == SIPCSeq(UInt32(11 + offset), method))
            #expect(try request.headers.from()?.tag == "alicetag")
            #expect(try request.headers.to()?.tag == "bobtag")
            #expect(request.headers.callID == "call-1@astra.test")
        }
    }

    @Test func goldenBye() throws {
        let invite = Self.invite(recordRoute: "<sip:proxy.test;lr>")
        var dialog = try Dialog(uac: invite, response: Self.response(invite, 200, recordRoute: "<sip:proxy.test;lr>"))
        let bye = dialog.makeRequest(.bye, via: via, contact: nil, ids: ids)
        #expect(
            String(decoding: bye.serialized(), as: UTF8.self) == "BYE sip:1002@192.0.2.20:5060 SIP/2.0\r\n"
                + "Via: SIP/2.0/WSS df7jal23ls0d.invalid;branch=z9hG4bKnew\r\n"
                + "Max-Forwards: 70\r\n"
                + "Route: <sip:proxy.test;lr>\r\n"
                + "From: \"Alice\" <sip:1001@astra.test>;tag=alicetag\r\n"
                + "To: <sip:1002@astra.test>;tag=bobtag\r\n"
                + "Call-ID: call-1@astra.test\r\n"
                + "CSeq: 11 BYE\r\n"
                + "Content-Length: 0\r\n\r\n")
    }

    @Test func uasDialogTakesRemoteCSeqAndStartsLocalFromIDs() throws {
        let invite = Self.invite()
        var dialog = try Dialog(uas: invite, localTag: "bobtag")
        #expect(dialog.state == .early)
        #expect(dialog.remoteSequence == 10)
        #expect(dialog.localSequence == nil)
        #expect(dialog.remoteTarget.description == "sip:1001@df7jal23ls0d.invalid;transport=ws")
        #expect(dialog.id == DialogID(callID: "call-1@astra.test", localTag: "bobtag", remoteTag: "alicetag"))
        dialog.confirm()
        #expect(dialog.state == .confirmed)
        let expectedFirst = SeededIdentifierSource(seed: 12).initialCSeq()
        let bye = dialog.makeRequest(.bye, via: via, contact: nil, ids: ids)
        #expect(try bye.headers.cseq()?.sequence == expectedFirst)
        #expect(try bye.headers.from()?.tag == "bobtag")
        #expect(try bye.headers.to()?.tag == "alicetag")
        #expect(bye.uri.description == "sip:1001@df7jal23ls0d.invalid;transport=ws")
    }

    @Test func uasNeedsContact() {
        #expect(throws: DialogError(.missingHeader)) { try Dialog(uas: Self.invite(contact: nil), localTag: "t") }
    }

    static func inDialog(
        _ method: SIPMethod, cseq: UInt32, contact: String? = nil,
        toTag: String = "bobtag", fromTag: String = "alicetag"
    ) -> SIPRequest {
        var text =
            "\(method) sip:1002@192.0.2.20:5060 SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP 192.0.2.10;branch=z9hG4bK\(method)\(cseq)\r\n"
            + "From: <sip:1001@astra.test>;tag=\(fromTag)\r\n"
            + "To: <sip:1002@astra.test>;tag=\(toTag)\r\n"
            + "Call-ID: call-1@astra.test\r\n"
            + "CSeq: \(cseq) \(method)\r\n"
        if let contact { text += "Contact: \(contact)\r\n" }
        return try! SIPMessage(parsing: text + "Content-Length: 0\r\n\r\n").request!
    }

    /// §12.2.2: remote CSeq must not go down (500); ACK/CANCEL are exempt; an empty remote
    /// sequence (UAC side) takes the first value.
    @Test func remoteCSeqRules() throws {
        var dialog = try Dialog(uas: Self.invite(), localTag: "bobtag")
        try dialog.acceptRemoteSequence(of: Self.inDialog(.info, cseq: 11))
        #expect(dialog.remoteSequence == 11)
        try dialog.acceptRemoteSequence(of: Self.inDialog(.ack, cseq: 10))
        #expect(throws: DialogError(.cseqOutOfOrder)) {
            try dialog.acceptRemoteSequence(of: Self.inDialog(.bye, cseq: 9))
        }
        #expect(dialog.remoteSequence == 11)
        #expect(Dialog.outOfOrderResponse(to: Self.inDialog(.bye, cseq: 9)).statusCode == 500)

        let invite = Self.invite()
        var uac = try Dialog(uac: invite, response: Self.response(invite, 200))
        let fromBob = Self.inDialog(.bye, cseq: 5, toTag: "alicetag", fromTag: "bobtag")
        try uac.acceptRemoteSequence(of: fromBob)
        #expect(uac.remoteSequence == 5)
    }

    @Test func matchingUsesCallIDAndBothTags() throws {
        let dialog = try Dialog(uas: Self.invite(), localTag: "bobtag")
        #expect(dialog.matches(Self.inDialog(.bye, cseq: 11)))
        #expect(!dialog.matches(Self.inDialog(.bye, cseq: 11, toTag: "other")))
        #expect(!dialog.matches(Self.inDialog(.bye, cseq: 11, fromTag: "other")))
        #expect(Dialog.noDialogResponse(to: Self.inDialog(.bye, cseq: 11, toTag: "other")).statusCode == 481)
    }

    /// §12.2: re-INVITE / UPDATE Contact replaces the remote target; the route set stays.
    @Test func targetRefreshUpdatesRemoteTargetOnly() throws {
        let invite = Self.invite(recordRoute: "<sip:proxy.test;lr>")
        var dialog = try Dialog(uas: invite, localTag: "bobtag")
        let reinvite = Self.inDialog(.invite, cseq: 11, contact: "<sip:1001@10.9.9.9:5062>")
        try dialog.refreshRemoteTarget(from: reinvite.headers)
        #expect(dialog.remoteTarget.description == "sip:1001@10.9.9.9:5062")
        #expect(dialog.routeSet.map(\.uri.description) == ["sip:proxy.test;lr"])
        try dialog.refreshRemoteTarget(from: Self.inDialog(.info, cseq: 12).headers)
        #expect(dialog.remoteTarget.description == "sip:1001@10.9.9.9:5062")
    }

    @Test func secureFlagFollowsSipsRequestURI() throws {
        let plain = Self.invite()
        let secure = Self.invite(uri: "sips:1002@astra.test")
        #expect(try !Dialog(uas: plain, localTag: "t").isSecure)
        #expect(try Dialog(uas: secure, localTag: "t").isSecure)
        #expect(try Dialog(uac: secure, response: Self.response(secure, 200)).isSecure)
    }
}

import SIPCore
import Testing

@testable import SIPDialog

/// RFC 4028 session timers in virtual time: negotiation from the 2xx or the request, refresh at
/// half the interval (UPDATE or re-INVITE), BYE at expiry, 422 / Min-SE.
@Suite struct InviteSessionTimerTests {
    @Test func callerRefreshesWithUpdateAtHalfInterval() throws {
        var h = InviteSetup.answeredCaller(extra: [(.sessionExpires, "120;refresher=uac"), (.require, "timer")])
        #expect(h.events == [.answered(InvitePeer.sdpAnswer), .sessionTimer(interval: 120, localRefresher: true)])
        #expect(h.deadlines[.sessionRefresh] == .seconds(60))
        #expect(h.deadlines[.sessionExpiry] == .seconds(88))
        h.advance(by: .seconds(60))
        let update = try #require(h.requests(.update).first)
        #expect(update.headers[.sessionExpires] == "120;refresher=uac")
        #expect(update.headers[SessionExpires.minSEHeader] == "90")
        #expect(update.body.isEmpty)
        #expect(try update.headers.contacts().count == 1)
        h.receive(InvitePeer.reply(to: update, 200, extra: [(.sessionExpires, "120;refresher=uac")]))
        #expect(h.deadlines[.sessionRefresh] == .seconds(120))
        #expect(h.deadlines[.sessionExpiry] == .seconds(148))
        h.advance(by: .seconds(60))
        #expect(h.requests(.update).count == 2)
        #expect(h.requests(.bye).isEmpty)
        #expect(!h.events.contains { if case .offerAnswered = $0 { true } else { false } })
    }

    @Test func callerRefreshesWithReinviteWhenPeerLacksUpdate() throws {
        var h = InviteSetup.answeredCaller(
            allow: "INVITE, ACK, BYE, CANCEL", extra: [(.sessionExpires, "90;refresher=uac")])
        h.advance(by: .seconds(45))
        let refresh = try #require(h.requests(.invite).last)
        #expect(h.requests(.invite).count == 2)
        #expect(refresh.body == InvitePeer.sdpOffer.bytes, "the refresh re-offers the current session")
        #expect(refresh.headers[.sessionExpires] == "90;refresher=uac")
        h.receive(
            InvitePeer.reply(
                to: refresh, 200, body: InvitePeer.sdpAnswer, extra: [(.sessionExpires, "90;refresher=uac")]))
        #expect(h.acks.count == 2)
        #expect(h.events.last == .sessionTimer(interval: 90, localRefresher: true))
    }

    /// §10: the non-refresher sends BYE at interval − min(32, interval/3) without a refresh.
    @Test func sessionExpiresWithoutRefresh() throws {
        var h = InviteSetup.answeredCaller(extra: [(.sessionExpires, "300;refresher=uas")])
        #expect(h.deadlines[.sessionRefresh] == nil)
        h.advance(by: .seconds(267))
        #expect(h.requests(.bye).isEmpty)
        h.advance(by: .seconds(1))
        #expect(h.requests(.bye).count == 1)
        #expect(h.ended == .sessionExpired)
    }

    @Test func peerRefreshKeepsSessionAlive() throws {
        var h = InviteSetup.answeredCaller(extra: [(.sessionExpires, "300;refresher=uas")])
        h.advance(by: .seconds(150))
        h.receive(
            InvitePeer.fromCallee(
                .update, cseq: 30, to: h.usage,
                extra: [
                    "Session-Expires: 300;refresher=uac",
                    "Supported: timer",
                ]))
        let ok = try #require(h.responses.last)
        #expect(ok.statusCode == 200)
        #expect(ok.headers[.sessionExpires] == "300;refresher=uac")
        h.advance(by: .seconds(200))
        #expect(h.requests(.bye).isEmpty)
        #expect(h.deadlines[.sessionExpiry] == .seconds(150 + 268))
    }

    /// §9: the UAS echoes Session-Expires with a refresher and `Require: timer` when the caller
    /// refreshes; it refreshes itself when the caller does not support timers.
    @Test func calleeNegotiatesRefresher() throws {
        var h = InviteSetup.callee(InvitePeer.invite(extra: ["Session-Expires: 1800", "Supported: timer"]))
        h.apply(try h.usage.answer(InvitePeer.sdpAnswer))
        let ok = try #require(h.responses.last)
        #expect(ok.headers[.sessionExpires] == "1800;refresher=uac")
        #expect(ok.headers.require == ["timer"])
        #expect(h.events.last == .sessionTimer(interval: 1800, localRefresher: false))
        #expect(h.deadlines[.sessionRefresh] == nil)
        #expect(h.deadlines[.sessionExpiry] == .seconds(1768))

        var u = InviteSetup.callee(InvitePeer.invite(extra: ["Session-Expires: 1800"]))
        u.apply(try u.usage.answer(InvitePeer.sdpAnswer))
        #expect(u.responses.last?.headers[.sessionExpires] == "1800;refresher=uas")
        u.receive(InvitePeer.inDialog(.ack, cseq: 20, localTag: u.usage.dialog!.id.localTag))
        u.advance(by: .seconds(900))
        let update = try #require(u.requests(.update).first)
        #expect(update.headers[.sessionExpires] == "1800;refresher=uac")
    }

    @Test func tooSmallIntervalGets422() throws {
        var h = InviteSetup.callee(InvitePeer.invite(extra: ["Session-Expires: 60", "Supported: timer"]))
        h.start()
        let reply = try #require(h.responses.first)
        #expect(reply.statusCode == 422)
        #expect(reply.headers[SessionExpires.minSEHeader] == "90")
        #expect(h.ended == .rejected(status: 422))
    }

    @Test func callerRetries422WithMinSE() throws {
        var h = InviteSetup.caller { $0.requestedSessionExpires = 90 }
        h.start()
        let first = h.requests[0]
        #expect(first.headers[.sessionExpires] == "90")
        h.receive(InvitePeer.reply(to: first, 422, extra: [(SessionExpires.minSEHeader, "300")]))
        let second = try #require(h.requests.last)
        #expect(h.requests.count == 2)
        #expect(second.headers[.sessionExpires] == "300")
        #expect(second.headers[SessionExpires.minSEHeader] == "300")
        #expect(try second.headers.cseq()!.sequence == (try first.headers.cseq()!.sequence) + 1)
        #expect(h.ended == nil)
    }

    @Test func disabledSessionTimersIgnoreTheHeader() throws {
        var h = InviteSetup.answeredCaller(extra: [(.sessionExpires, "120;refresher=uac")]) { $0.sessionTimers = false }
        #expect(h.requests[0].headers[.supported] == nil)
        #expect(h.deadlines.isEmpty)
        h.advance(by: .seconds(600))
        #expect(h.requests.count == 1)
    }

    @Test(arguments: [
        ("1800", UInt32(1800), SessionExpires.Refresher?.none),
        ("90;refresher=uac", 90, .uac), ("120 ; Refresher=UAS", 120, .uas), ("4000;x=y", 4000, nil),
    ])
    func parsesSessionExpires(text: String, interval: UInt32, refresher: SessionExpires.Refresher?) {
        #expect(SessionExpires(headerValue: text) == SessionExpires(interval: interval, refresher: refresher))
    }

    @Test(arguments: ["", "abc", "0", "-5"])
    func rejectsBadSessionExpires(text: String) {
        #expect(SessionExpires(headerValue: text) == nil)
    }
}

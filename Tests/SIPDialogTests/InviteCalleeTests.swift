import SIPCore
import Testing

@testable import SIPDialog

/// UAS side of the INVITE usage (RFC 3261 §13.3, §9.2, §15): ringing, answering, 2xx
/// retransmission until ACK, ACK timeout, CANCEL, rejection.
@Suite struct InviteCalleeTests {
    @Test func incomingInviteExposesOfferAndCaller() throws {
        let h = InviteSetup.callee()
        #expect(h.usage.state == .incoming)
        #expect(h.usage.role == .uas)
        #expect(h.usage.remoteInitialOffer == InvitePeer.sdpOffer)
        #expect(h.usage.remoteIdentity.displayName == "Alice")
        #expect(h.usage.callID == "incoming-call-1")
        #expect(
            h.usage.dialog?.routeSet.map(\.uri.description) == [
                "sip:127.0.0.1:5060;transport=tcp;r2=on;lr", "sip:127.0.0.1:8089;transport=ws;r2=on;lr",
            ])
    }

    @Test func ringThenAnswerThenACK() throws {
        var h = InviteSetup.callee()
        h.start()
        #expect(h.responses.isEmpty)
        h.apply(try h.usage.ring())
        let ringing = try #require(h.responses.last)
        #expect(ringing.statusCode == 180)
        let tag = try #require(try ringing.headers.to()?.tag)
        #expect(
            try ringing.headers.contacts().first?.address?.uri.description == "sip:1002@192.0.2.20:5062;transport=tcp")
        #expect(ringing.headers.values(.recordRoute) == [InvitePeer.kamailioRecordRoute])
        #expect(ringing.headers.values(.via).count == 2)
        h.apply(try h.usage.answer(InvitePeer.sdpAnswer))
        let ok = try #require(h.responses.last)
        #expect(ok.statusCode == 200)
        #expect(try ok.headers.to()?.tag == tag)
        #expect(ok.body == InvitePeer.sdpAnswer.bytes)
        #expect(ok.headers.contentType == "application/sdp")
        #expect(h.usage.state == .waitingForACK)
        #expect(h.usage.dialog?.state == .confirmed)
        h.receive(InvitePeer.inDialog(.ack, cseq: 20, localTag: tag))
        #expect(h.usage.state == .confirmed)
        #expect(h.events == [.confirmed(nil)])
        #expect(h.deadlines.isEmpty)
    }

    @Test func earlyMediaIs183WithBody() throws {
        var h = InviteSetup.callee()
        h.apply(try h.usage.ring(earlyMedia: InvitePeer.sdpAnswer))
        #expect(h.responses.last?.statusCode == 183)
        #expect(h.responses.last?.body == InvitePeer.sdpAnswer.bytes)
    }

    /// §13.3.1.4: the 2xx goes out at T1, 2T1, 4T1 … capped at T2 until the ACK; after 64·T1
    /// without ACK the session is ended with BYE.
    @Test func twoXXIsRetransmittedUntilACKThenGivesUpWithBye() throws {
        var h = InviteSetup.callee()
        h.apply(try h.usage.answer(InvitePeer.sdpAnswer))
        h.run(until: .seconds(32))
        let times = h.responseTimes.map { $0 / .milliseconds(1) }
        #expect(times == [0, 500, 1500, 3500, 7500, 11500, 15500, 19500, 23500, 27500, 31500])
        let bye = try #require(h.requests(.bye).first)
        #expect(h.ended == .ackTimeout)
        #expect(bye.uri.description == "sip:1001@df7jal23ls0d.invalid;transport=ws")
        #expect(
            bye.headers.values(.route) == [
                "<sip:127.0.0.1:5060;transport=tcp;r2=on;lr>",
                "<sip:127.0.0.1:8089;transport=ws;r2=on;lr>",
            ])
        #expect(h.usage.state == .terminating)
        h.receive(InvitePeer.reply(to: bye, 200, tag: nil))
        #expect(h.usage.isTerminated)
    }

    @Test func ackStopsRetransmissions() throws {
        var h = InviteSetup.callee { $0.timers = TransactionTimers(t1: .milliseconds(100), t2: .milliseconds(400)) }
        h.apply(try h.usage.answer(InvitePeer.sdpAnswer))
        h.run(until: .milliseconds(350))
        #expect(h.responses.count == 3)
        h.receive(InvitePeer.inDialog(.ack, cseq: 20, localTag: h.usage.dialog!.id.localTag))
        h.run(until: .seconds(60))
        #expect(h.responses.count == 3)
        #expect(h.requests.isEmpty)
        // A retransmitted ACK changes nothing.
        h.receive(InvitePeer.inDialog(.ack, cseq: 20, localTag: h.usage.dialog!.id.localTag))
        #expect(h.events == [.confirmed(nil)])
    }

    /// §9.2: CANCEL before the answer: 200 to the CANCEL, 487 to the INVITE.
    @Test func cancelBeforeAnswer() throws {
        var h = InviteSetup.callee()
        h.apply(try h.usage.ring())
        var cancel = InvitePeer.invite(body: nil)
        cancel.method = .cancel
        cancel.headers.set(.cseq, "20 CANCEL")
        h.receive(cancel)
        #expect(h.responses.map(\.statusCode) == [180, 200, 487])
        #expect(try h.responses[1].headers.cseq()?.method == .cancel)
        #expect(try h.responses[2].headers.cseq()?.method == .invite)
        #expect(h.ended == .cancelled)
        #expect(throws: InviteError(.invalidState)) { try h.usage.answer(InvitePeer.sdpAnswer) }
    }

    /// SIPEndpoint answers the CANCEL itself and reports the INVITE: only the 487 is ours.
    @Test func cancelAnsweredByTransactionLayer() throws {
        var h = InviteSetup.callee()
        h.apply(try h.usage.ring())
        h.apply(h.usage.inviteCancelled(InvitePeer.invite()))
        #expect(h.responses.map(\.statusCode) == [180, 487])
        #expect(h.ended == .cancelled)
        var answered = InviteSetup.callee()
        answered.apply(try answered.usage.answer(InvitePeer.sdpAnswer))
        answered.apply(answered.usage.inviteCancelled(InvitePeer.invite()))
        #expect(answered.responses.map(\.statusCode) == [200])
        #expect(answered.ended == nil)
    }

    @Test func cancelAfterAnswerOnlyGets200() throws {
        var h = InviteSetup.callee()
        h.apply(try h.usage.answer(InvitePeer.sdpAnswer))
        var cancel = InvitePeer.invite(body: nil)
        cancel.method = .cancel
        cancel.headers.set(.cseq, "20 CANCEL")
        h.receive(cancel)
        #expect(h.responses.map(\.statusCode) == [200, 200])
        #expect(h.ended == nil)
    }

    @Test(arguments: [486, 603, 404])
    func rejectSendsFinalFailure(status: Int) throws {
        var h = InviteSetup.callee()
        h.apply(try h.usage.reject(status: status))
        #expect(h.responses.map(\.statusCode) == [status])
        #expect(try h.responses[0].headers.to()?.tag != nil)
        #expect(h.ended == .rejected(status: status))
        #expect(h.usage.isTerminated)
    }

    @Test func rejectNeedsAFailureStatus() {
        var h = InviteSetup.callee()
        #expect(throws: InviteError(.invalidStatus)) { try h.usage.reject(status: 200) }
        #expect(throws: InviteError(.invalidState)) { try h.usage.reinvite(offer: InvitePeer.holdOffer) }
    }

    @Test func hangUpOfUnansweredCallDeclines() {
        var h = InviteSetup.callee()
        h.hangUp()
        #expect(h.responses.map(\.statusCode) == [603])
        #expect(h.ended == .localHangUp)
    }

    /// §15: the callee may not BYE before the ACK for its 2xx.
    @Test func hangUpBeforeACKWaitsForIt() throws {
        var h = InviteSetup.callee()
        h.apply(try h.usage.answer(InvitePeer.sdpAnswer))
        h.hangUp()
        #expect(h.requests.isEmpty)
        h.receive(InvitePeer.inDialog(.ack, cseq: 20, localTag: h.usage.dialog!.id.localTag))
        #expect(h.requests(.bye).count == 1)
        #expect(h.ended == .localHangUp)
    }

    @Test func offerlessInviteGetsOurOfferAndTheAnswerComesInTheACK() throws {
        var h = InviteSetup.callee(InvitePeer.invite(body: nil))
        #expect(h.usage.remoteInitialOffer == nil)
        h.apply(try h.usage.answer(InvitePeer.sdpAnswer))
        h.receive(InvitePeer.inDialog(.ack, cseq: 20, localTag: h.usage.dialog!.id.localTag, body: InvitePeer.sdpOffer))
        #expect(h.events == [.confirmed(InvitePeer.sdpOffer)])
    }

    /// §15.1.2: a BYE on the early dialog also ends the pending INVITE with 487.
    @Test func byeOnEarlyDialogAnswersInviteWith487() throws {
        var h = InviteSetup.callee()
        h.apply(try h.usage.ring())
        h.receive(InvitePeer.inDialog(.bye, cseq: 21, localTag: h.usage.dialog!.id.localTag))
        #expect(h.responses.map(\.statusCode) == [180, 200, 487])
        #expect(h.ended == .remoteHangUp)
    }

    /// §8.2.2.3: an extension we lack in Require (RFC 3262 100rel) gets 420 with Unsupported.
    @Test func requiredExtensionWeLackGets420() throws {
        var h = InviteSetup.callee(InvitePeer.invite(extra: ["Require: 100rel, timer", "Session-Expires: 1800"]))
        h.start()
        #expect(h.responses.map(\.statusCode) == [420])
        #expect(h.responses[0].headers[.unsupported] == "100rel")
        #expect(h.ended == .rejected(status: 420))
        var ok = InviteSetup.callee(InvitePeer.invite(extra: ["Require: timer", "Session-Expires: 1800"]))
        ok.start()
        #expect(ok.responses.isEmpty)
    }

    @Test func inviteWithoutContactCannotCreateTheUsage() {
        var text = String(decoding: InvitePeer.invite(body: nil).serialized(), as: UTF8.self)
        text = text.replacing("Contact: <sip:1001@df7jal23ls0d.invalid;transport=ws>\r\n", with: "")
        let invite = try! SIPMessage(parsing: text).request!
        #expect(throws: DialogError(.missingHeader)) {
            try InviteUsage(incoming: invite, binding: InviteSetup.tcp, ids: SeededIdentifierSource(seed: 1))
        }
    }
}

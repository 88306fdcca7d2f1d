import SIPCore
import Testing

@testable import SIPDialog

/// Inside the confirmed dialog (RFC 3261 §12.2, §14, §15): BYE both ways, re-INVITE for hold and
/// resume, glare (491), OPTIONS / INFO, CSeq and dialog-matching rules.
@Suite struct InviteInDialogTests {
    @Test func localByeFromCallerThen200Terminates() throws {
        var h = InviteSetup.answeredCaller()
        let inviteCSeq = try h.requests[0].headers.cseq()!.sequence
        h.hangUp()
        let bye = try #require(h.requests(.bye).first)
        #expect(try bye.headers.cseq() == SIPCSeq(inviteCSeq + 1, .bye))
        #expect(bye.uri.description == "sip:1002@192.0.2.20:5062;transport=tcp")
        #expect(h.ended == .localHangUp)
        #expect(h.usage.state == .terminating)
        h.hangUp()
        #expect(h.requests(.bye).count == 1, "hang-up is idempotent")
        h.receive(InvitePeer.reply(to: bye, 200, tag: nil))
        #expect(h.usage.isTerminated)
    }

    @Test func byeTimeoutStillTerminates() throws {
        var h = InviteSetup.answeredCaller()
        h.hangUp()
        let bye = try #require(h.requests(.bye).first)
        h.apply(h.usage.transactionFailed(try bye.headers.cseq()!, .timeout))
        #expect(h.usage.isTerminated)
    }

    /// §15.1.2: the UAS of a BYE answers 200 and ends the session (both roles).
    @Test func remoteByeIsAnswered200() throws {
        var caller = InviteSetup.answeredCaller()
        caller.receive(InvitePeer.fromCallee(.bye, cseq: 7, to: caller.usage))
        #expect(caller.responses.map(\.statusCode) == [200])
        #expect(caller.ended == .remoteHangUp)
        #expect(caller.usage.isTerminated)

        var callee = InviteSetup.confirmedCallee()
        callee.receive(InvitePeer.inDialog(.bye, cseq: 21, localTag: callee.usage.dialog!.id.localTag))
        #expect(callee.responses.last?.statusCode == 200)
        #expect(callee.ended == .remoteHangUp)
    }

    @Test func requestsForUnknownDialogGet481AndLowerCSeqGets500() throws {
        var h = InviteSetup.confirmedCallee()
        let tag = h.usage.dialog!.id.localTag
        h.receive(InvitePeer.inDialog(.bye, cseq: 22, localTag: "someone-else"))
        #expect(h.responses.last?.statusCode == 481)
        h.receive(InvitePeer.inDialog(.info, cseq: 25, localTag: tag))
        h.receive(InvitePeer.inDialog(.bye, cseq: 24, localTag: tag))
        #expect(h.responses.last?.statusCode == 500)
        #expect(h.usage.state == .confirmed)
    }

    @Test func optionsAndInfoAreAnswered200() throws {
        var h = InviteSetup.confirmedCallee()
        let tag = h.usage.dialog!.id.localTag
        h.receive(InvitePeer.inDialog(.options, cseq: 21, localTag: tag))
        let ok = try #require(h.responses.last)
        #expect(ok.statusCode == 200)
        #expect(ok.headers.allow.contains(.invite))
        #expect(ok.headers[.accept] == "application/sdp")
        let dtmf = SessionBody(text: "Signal=5\r\nDuration=160\r\n", contentType: "application/dtmf-relay")
        h.receive(InvitePeer.inDialog(.info, cseq: 22, localTag: tag, body: dtmf))
        #expect(h.responses.last?.statusCode == 200)
        #expect(h.events.last == .info(dtmf))
        h.receive(InvitePeer.inDialog("MESSAGE", cseq: 23, localTag: tag))
        #expect(h.responses.last?.statusCode == 405)
    }

    @Test func newFlowIsUsedByLaterRequests() throws {
        var h = InviteSetup.answeredCaller()
        h.usage.updateBinding(LocalBinding(transport: .wss, host: "k2j3h4g5.invalid", port: nil))
        h.apply(try h.usage.reinvite(offer: InvitePeer.sdpOffer))
        let refresh = try #require(h.requests.last)
        #expect(try refresh.headers.topVia()?.host.address == "k2j3h4g5.invalid")
        #expect(try refresh.headers.contacts().first?.address?.uri.host?.address == "k2j3h4g5.invalid")
    }

    @Test func sendInfoBuildsInDialogRequest() throws {
        var h = InviteSetup.answeredCaller()
        let dtmf = SessionBody(text: "Signal=1\r\nDuration=160\r\n", contentType: "application/dtmf-relay")
        h.apply(try h.usage.sendInfo(dtmf))
        let info = try #require(h.requests(.info).first)
        #expect(info.headers.contentType == "application/dtmf-relay")
        #expect(info.body == dtmf.bytes)
        #expect(try info.headers.to()?.tag == "bob1")
    }

    /// §14.1: hold and resume are re-INVITEs with the media layer's offers; each 2xx is ACKed
    /// with the re-INVITE's CSeq and re-ACKed on retransmission.
    @Test func holdAndResumeReinvites() throws {
        var h = InviteSetup.answeredCaller()
        h.apply(try h.usage.reinvite(offer: InvitePeer.holdOffer))
        let hold = try #require(h.requests(.invite).last)
        #expect(h.requests(.invite).count == 2)
        #expect(hold.body == InvitePeer.holdOffer.bytes)
        #expect(try hold.headers.to()?.tag == "bob1")
        #expect(try hold.headers.contacts().count == 1)
        #expect(throws: InviteError(.requestPending)) { try h.usage.reinvite(offer: InvitePeer.sdpOffer) }
        let holdOK = InvitePeer.reply(to: hold, 200, body: InvitePeer.sdpAnswer)
        h.receive(holdOK)
        #expect(h.events.last == .offerAnswered(InvitePeer.sdpAnswer))
        let ack = try #require(h.acks.last)
        #expect(try ack.headers.cseq() == SIPCSeq(try hold.headers.cseq()!.sequence, .ack))
        h.receive(holdOK)
        #expect(h.acks.count == 3)
        #expect(h.acks[2].serialized() == ack.serialized())
        h.apply(try h.usage.reinvite(offer: InvitePeer.sdpOffer))
        let resume = try #require(h.requests(.invite).last)
        #expect(try resume.headers.cseq()!.sequence == (try hold.headers.cseq()!.sequence) + 1)
        h.receive(InvitePeer.reply(to: resume, 488))
        #expect(h.events.last == .offerRejected(status: 488))
        #expect(h.usage.state == .confirmed)
    }

    /// §14.2: the peer's re-INVITE is handed to the media layer; our 200 is retransmitted until
    /// its ACK like any 2xx to an INVITE.
    @Test func remoteReinviteIsAnsweredAndRetransmittedUntilACK() throws {
        var h = InviteSetup.confirmedCallee()
        let tag = h.usage.dialog!.id.localTag
        h.receive(InvitePeer.inDialog(.invite, cseq: 21, localTag: tag, body: InvitePeer.holdOffer))
        #expect(h.events.last == .remoteOffer(InvitePeer.holdOffer))
        // A second re-INVITE before we answered: 500 with Retry-After (§14.2).
        h.receive(InvitePeer.inDialog(.invite, cseq: 22, localTag: tag, body: InvitePeer.holdOffer))
        #expect(h.responses.last?.statusCode == 500)
        #expect(h.responses.last?.headers.contains(.retryAfter) == true)
        let before = h.responses.count
        h.apply(try h.usage.answerOffer(InvitePeer.sdpAnswer))
        #expect(h.responses.count == before + 1)
        #expect(h.responses.last?.statusCode == 200)
        h.advance(by: .milliseconds(600))
        #expect(h.responses.count == before + 2)
        h.receive(InvitePeer.inDialog(.ack, cseq: 21, localTag: tag))
        h.advance(by: .seconds(40))
        #expect(h.responses.count == before + 2)
        #expect(h.requests.isEmpty)
    }

    /// §9.2: a CANCEL for the peer's pending re-INVITE gets it a 487; the call stays up.
    @Test func cancelledReinviteGets487AndCallStays() throws {
        var h = InviteSetup.confirmedCallee()
        let reinvite = InvitePeer.inDialog(
            .invite, cseq: 21, localTag: h.usage.dialog!.id.localTag,
            body: InvitePeer.holdOffer)
        h.receive(reinvite)
        var cancel = reinvite
        cancel.method = .cancel
        cancel.headers.set(.cseq, "21 CANCEL")
        h.receive(cancel)
        #expect(h.responses.map(\.statusCode) == [200, 200, 487])
        #expect(try h.responses[2].headers.cseq() == SIPCSeq(21, .invite))
        #expect(h.usage.state == .confirmed)
        #expect(throws: InviteError(.invalidState)) { try h.usage.answerOffer(InvitePeer.sdpAnswer) }
    }

    @Test func remoteReinviteCanBeRejected() throws {
        var h = InviteSetup.confirmedCallee()
        h.receive(
            InvitePeer.inDialog(.invite, cseq: 21, localTag: h.usage.dialog!.id.localTag, body: InvitePeer.holdOffer))
        h.apply(try h.usage.rejectOffer())
        #expect(h.responses.last?.statusCode == 488)
        #expect(throws: InviteError(.invalidState)) { try h.usage.answerOffer(nil) }
    }

    @Test func remoteReinviteUpdatesRemoteTarget() throws {
        var h = InviteSetup.answeredCaller()
        let reinvite = InvitePeer.fromCallee(.invite, cseq: 8, to: h.usage, body: InvitePeer.sdpAnswer)
        h.receive(reinvite)
        #expect(h.usage.dialog?.remoteTarget.description == "sip:1001@df7jal23ls0d.invalid;transport=ws")
    }

    /// §14.1 / §14.2: glare. The peer's re-INVITE while ours is pending gets 491; our re-INVITE
    /// that gets 491 is retried after 2.1–4 s (we own the Call-ID) or 0–2 s (we do not), with a
    /// new CSeq and the same offer.
    @Test func glareBothWays() throws {
        var h = InviteSetup.answeredCaller()
        h.apply(try h.usage.reinvite(offer: InvitePeer.holdOffer))
        let ours = try #require(h.requests(.invite).last)
        h.receive(InvitePeer.fromCallee(.invite, cseq: 9, to: h.usage, body: InvitePeer.holdOffer))
        #expect(h.responses.last?.statusCode == 491)
        h.receive(InvitePeer.reply(to: ours, 491))
        guard case .glare(let delay) = h.events.last else {
            Issue.record("expected glare, got \(h.events)")
            return
        }
        #expect(delay >= .milliseconds(2100) && delay <= .seconds(4))
        #expect(delay.components.attoseconds % 10_000_000_000_000_000 == 0, "10 ms units")
        h.advance(by: delay)
        let retry = try #require(h.requests(.invite).last)
        #expect(h.requests(.invite).count == 3)
        #expect(try retry.headers.cseq()!.sequence == (try ours.headers.cseq()!.sequence) + 1)
        #expect(retry.body == InvitePeer.holdOffer.bytes)

        var c = InviteSetup.confirmedCallee()
        c.apply(try c.usage.reinvite(offer: InvitePeer.holdOffer))
        let calleeOffer = try #require(c.requests(.invite).last)
        c.receive(InvitePeer.reply(to: calleeOffer, 491, tag: nil))
        guard case .glare(let calleeDelay) = c.events.last else {
            Issue.record("expected glare, got \(c.events)")
            return
        }
        #expect(calleeDelay <= .seconds(2))
    }

    @Test func reinviteChallengeIsAnswered() throws {
        var h = InviteSetup.caller(credentials: DigestCredentials(username: "1001", password: "secret1001"))
        h.start()
        h.receive(InvitePeer.reply(to: h.requests[0], 200, body: InvitePeer.sdpAnswer))
        h.apply(try h.usage.reinvite(offer: InvitePeer.holdOffer))
        let first = try #require(h.requests.last)
        h.receive(
            InvitePeer.reply(to: first, 407, extra: [(.proxyAuthenticate, "Digest realm=\"astra.test\", nonce=\"r1\"")])
        )
        let second = try #require(h.requests.last)
        #expect(second.method == .invite)
        #expect(second.headers[.proxyAuthorization]?.contains("nonce=\"r1\"") == true)
        #expect(try second.headers.cseq()!.sequence == (try first.headers.cseq()!.sequence) + 1)
        h.receive(InvitePeer.reply(to: second, 200, body: InvitePeer.sdpAnswer))
        #expect(h.events.last == .offerAnswered(InvitePeer.sdpAnswer))
    }

    /// A 2xx to a re-INVITE that crossed our BYE is still ACKed (§13.2.2.4).
    @Test func reinvite2xxAfterByeIsStillAcked() throws {
        var h = InviteSetup.answeredCaller()
        h.apply(try h.usage.reinvite(offer: InvitePeer.holdOffer))
        let hold = try #require(h.requests.last)
        h.hangUp()
        h.receive(InvitePeer.reply(to: hold, 200, body: InvitePeer.sdpAnswer))
        #expect(h.acks.count == 2)
        #expect(try h.acks[1].headers.cseq() == SIPCSeq(try hold.headers.cseq()!.sequence, .ack))
        #expect(!h.events.contains(.offerAnswered(InvitePeer.sdpAnswer)))
    }

    /// §12.2.1.2: 481 to an in-dialog request ends the dialog; 408 ends it with BYE.
    @Test func reinvite481EndsAnd408Byes() throws {
        var h = InviteSetup.answeredCaller()
        h.apply(try h.usage.reinvite(offer: InvitePeer.holdOffer))
        h.receive(InvitePeer.reply(to: h.requests.last!, 481))
        #expect(h.ended == .failed(status: 481, reason: "Call/Transaction Does Not Exist"))
        #expect(h.requests(.bye).isEmpty)

        var t = InviteSetup.answeredCaller()
        t.apply(try t.usage.reinvite(offer: InvitePeer.holdOffer))
        t.apply(t.usage.transactionFailed(try t.requests.last!.headers.cseq()!, .timeout))
        #expect(t.ended == .timeout)
        #expect(t.requests(.bye).count == 1)
    }
}

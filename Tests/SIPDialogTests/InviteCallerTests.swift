import SIPCore
import Testing

@testable import SIPDialog

/// UAC side of the INVITE usage (RFC 3261 §13.2, §9.1, §22): provisional handling, early media,
/// forking, ACK for 2xx, CANCEL and its race with a 2xx, failures, digest.
@Suite struct InviteCallerTests {
    @Test func inviteCarriesOfferContactAndStableIDs() throws {
        var a = InviteSetup.caller()
        var b = InviteSetup.caller()
        a.start()
        b.start()
        let invite = try #require(a.lastRequest)
        #expect(invite.serialized() == b.lastRequest?.serialized())
        #expect(invite.method == .invite)
        #expect(invite.uri.description == "sip:1002@astra.test")
        #expect(try invite.headers.topVia()?.transport == .wss)
        #expect(try invite.headers.topVia()?.hasMagicCookie == true)
        #expect(try invite.headers.from()?.tag != nil)
        #expect(try invite.headers.to()?.tag == nil)
        #expect(
            try invite.headers.contacts().first?.address?.uri.description
                == "sip:1001@df7jal23ls0d.invalid;transport=ws")
        #expect(invite.headers.supported == ["timer"])
        #expect(invite.headers.contentType == "application/sdp")
        #expect(invite.body == InvitePeer.sdpOffer.bytes)
        #expect(a.usage.state == .calling)
        #expect(a.deadlines[.noAnswer] == .seconds(60))
    }

    @Test func provisionalsGiveTryingRingingAndEarlyMedia() throws {
        var h = InviteSetup.caller()
        h.start()
        let invite = h.requests[0]
        h.receive(InvitePeer.reply(to: invite, 100))
        h.receive(InvitePeer.reply(to: invite, 180))
        h.receive(InvitePeer.reply(to: invite, 183, body: InvitePeer.sdpAnswer))
        #expect(h.events == [.trying, .ringing, .earlyMedia(InvitePeer.sdpAnswer)])
        #expect(h.usage.state == .proceeding)
        #expect(Array(h.usage.earlyDialogs.keys) == ["bob1"])
        #expect(h.usage.earlyDialogs["bob1"]?.state == .early)
    }

    @Test func twoXXIsAckedWithInviteCSeqAndReAckedOnRetransmission() throws {
        var h = InviteSetup.caller()
        h.start()
        let invite = h.requests[0]
        let ok = InvitePeer.reply(
            to: invite, 200, body: InvitePeer.sdpAnswer, recordRoute: InvitePeer.kamailioRecordRoute)
        h.receive(ok)
        #expect(h.events == [.answered(InvitePeer.sdpAnswer)])
        #expect(h.usage.state == .confirmed)
        let ack = try #require(h.acks.first)
        #expect(try ack.headers.cseq() == SIPCSeq(try invite.headers.cseq()!.sequence, .ack))
        #expect(ack.uri.description == "sip:1002@192.0.2.20:5062;transport=tcp")
        #expect(
            ack.headers.values(.route) == [
                "<sip:127.0.0.1:8089;transport=ws;r2=on;lr>", "<sip:127.0.0.1:5060;transport=tcp;r2=on;lr>",
            ])
        #expect(try ack.headers.topVia()?.branch != (try invite.headers.topVia()?.branch))
        #expect(try ack.headers.to()?.tag == "bob1")
        #expect(h.deadlines[.noAnswer] == nil)
        h.receive(ok)
        h.receive(ok)
        #expect(h.acks.count == 3)
        #expect(h.acks.allSatisfy { $0.serialized() == ack.serialized() })
        #expect(h.events.count == 1)
    }

    /// §13.2.2.4: early dialogs per To tag; the first 2xx wins; a later 2xx from another fork is
    /// ACKed and BYEd, and its retransmissions only re-ACKed.
    @Test func forkedResponses() throws {
        var h = InviteSetup.caller()
        h.start()
        let invite = h.requests[0]
        h.receive(InvitePeer.reply(to: invite, 180, tag: "forkA", contact: "<sip:1002@192.0.2.31>"))
        h.receive(
            InvitePeer.reply(
                to: invite, 183, tag: "forkB", body: InvitePeer.sdpAnswer, contact: "<sip:1002@192.0.2.32>"))
        #expect(Set(h.usage.earlyDialogs.keys) == ["forkA", "forkB"])
        h.receive(
            InvitePeer.reply(
                to: invite, 200, tag: "forkB", body: InvitePeer.sdpAnswer, contact: "<sip:1002@192.0.2.32>"))
        #expect(h.usage.dialog?.id.remoteTag == "forkB")
        #expect(h.usage.earlyDialogs.isEmpty)
        #expect(h.acks.count == 1)
        let lateOK = InvitePeer.reply(
            to: invite, 200, tag: "forkA", body: InvitePeer.sdpAnswer, contact: "<sip:1002@192.0.2.31>")
        h.receive(lateOK)
        #expect(h.acks.count == 2)
        #expect(h.acks[1].uri.description == "sip:1002@192.0.2.31")
        let bye = try #require(h.requests(.bye).first)
        #expect(bye.uri.description == "sip:1002@192.0.2.31")
        #expect(try bye.headers.to()?.tag == "forkA")
        #expect(h.events.last == .forkReleased(remoteTag: "forkA"))
        // The fork's BYE response is absorbed; the kept call is untouched.
        h.receive(InvitePeer.reply(to: bye, 200, tag: nil))
        #expect(h.usage.state == .confirmed)
        h.receive(lateOK)
        #expect(h.acks.count == 3)
        #expect(h.requests(.bye).count == 1)
    }

    /// §9.1: CANCEL only after a provisional, with the INVITE's branch; then 487 ends the call.
    @Test func cancelWhileRinging() throws {
        var h = InviteSetup.caller()
        h.start()
        let invite = h.requests[0]
        h.hangUp()
        #expect(h.requests.count == 1, "no CANCEL before a provisional")
        h.receive(InvitePeer.reply(to: invite, 180))
        let cancel = try #require(h.requests(.cancel).first)
        #expect(h.usage.state == .cancelling)
        #expect(cancel.uri == invite.uri)
        #expect(cancel.headers.values(.via) == invite.headers.values(.via))
        #expect(try cancel.headers.cseq() == SIPCSeq(try invite.headers.cseq()!.sequence, .cancel))
        #expect(cancel.headers[.to] == invite.headers[.to])
        #expect(cancel.headers[.from] == invite.headers[.from])
        #expect(cancel.headers.callID == invite.headers.callID)
        #expect(cancel.body.isEmpty)
        h.receive(InvitePeer.reply(to: cancel, 200))
        #expect(h.ended == nil)
        h.receive(InvitePeer.reply(to: invite, 487))
        #expect(h.ended == .cancelled)
        #expect(h.usage.isTerminated)
        #expect(!h.events.contains(.ringing), "no ringing event once the user hung up")
    }

    /// §9.1 race: the 2xx crosses our CANCEL: ACK it, then BYE.
    @Test func twoXXAfterCancelIsAckedThenByed() throws {
        var h = InviteSetup.caller()
        h.start()
        let invite = h.requests[0]
        h.receive(InvitePeer.reply(to: invite, 180))
        h.hangUp()
        h.receive(InvitePeer.reply(to: invite, 200, body: InvitePeer.sdpAnswer))
        #expect(h.acks.count == 1)
        let bye = try #require(h.requests(.bye).first)
        #expect(try bye.headers.cseq()!.sequence == (try invite.headers.cseq()!.sequence) + 1)
        #expect(h.ended == .cancelled)
        #expect(h.usage.state == .terminating)
        h.receive(InvitePeer.reply(to: bye, 200))
        #expect(h.usage.isTerminated)
    }

    @Test func noAnswerTimeoutCancels() throws {
        var h = InviteSetup.caller { $0.noAnswerTimeout = .seconds(30) }
        h.start()
        let invite = h.requests[0]
        h.receive(InvitePeer.reply(to: invite, 180))
        h.advance(by: .seconds(30))
        let cancel = try #require(h.requests(.cancel).first)
        h.receive(InvitePeer.reply(to: cancel, 200))
        h.receive(InvitePeer.reply(to: invite, 487))
        #expect(h.ended == .noAnswer)
    }

    @Test func cancelWithoutFinalGivesUpAfter64T1() {
        var h = InviteSetup.caller()
        h.start()
        h.receive(InvitePeer.reply(to: h.requests[0], 180))
        h.hangUp()
        h.advance(by: .seconds(32))
        #expect(h.ended == .cancelled)
        #expect(h.usage.isTerminated)
    }

    @Test func timeoutAfterEarlyHangUpReportsTheHangUp() throws {
        var h = InviteSetup.caller()
        h.start()
        h.hangUp()
        h.apply(h.usage.transactionFailed(try h.requests[0].headers.cseq()!, .timeout))
        #expect(h.ended == .cancelled)
    }

    static let failures: [(Int, InviteEndReason)] = [
        (486, .busy(status: 486)), (600, .busy(status: 600)), (603, .declined),
        (404, .failed(status: 404, reason: "Not Found")), (408, .timeout),
        (480, .failed(status: 480, reason: "Temporarily Unavailable")),
        (487, .failed(status: 487, reason: "Request Terminated")),
        (401, .authenticationFailed(status: 401)),
    ]

    @Test(arguments: failures)
    func finalFailuresMapToEndReasons(status: Int, reason: InviteEndReason) {
        var h = InviteSetup.caller()
        h.start()
        h.receive(InvitePeer.reply(to: h.requests[0], 180))
        h.receive(
            InvitePeer.reply(
                to: h.requests[0], status,
                extra: status == 401
                    ? [(.wwwAuthenticate, "Digest realm=\"astra.test\", nonce=\"n1\"")] : []))
        #expect(h.ended == reason)
        #expect(h.usage.isTerminated)
        #expect(h.deadlines.isEmpty)
        #expect(h.acks.isEmpty, "the ACK for a non-2xx is the transaction's")
    }

    @Test func transactionTimeoutAndTransportErrorEndTheCall() throws {
        var h = InviteSetup.caller()
        h.start()
        let cseq = try #require(try h.requests[0].headers.cseq())
        h.apply(h.usage.transactionFailed(cseq, .timeout))
        #expect(h.ended == .timeout)
        var t = InviteSetup.caller()
        t.start()
        t.apply(t.usage.transactionFailed(cseq, .transportError))
        #expect(t.ended == .transportError)
    }

    /// §22.2: a 401/407 is answered once: new CSeq, same Call-ID and From tag, new branch.
    @Test(arguments: [
        (401, SIPHeaderName.wwwAuthenticate, SIPHeaderName.authorization),
        (407, .proxyAuthenticate, .proxyAuthorization),
    ])
    func challengeIsAnsweredWithCredentials(status: Int, challenge: SIPHeaderName, answer: SIPHeaderName) throws {
        var h = InviteSetup.caller(credentials: DigestCredentials(username: "1001", password: "secret1001"))
        h.start()
        let first = h.requests[0]
        h.receive(
            InvitePeer.reply(
                to: first, status, extra: [(challenge, "Digest realm=\"astra.test\", nonce=\"n1\", qop=\"auth\"")]))
        #expect(h.events == [.challenged(status: status)])
        let second = try #require(h.requests.last)
        #expect(h.requests.count == 2)
        #expect(second.headers.callID == first.headers.callID)
        #expect(try second.headers.from() == (try first.headers.from()))
        #expect(try second.headers.cseq()!.sequence == (try first.headers.cseq()!.sequence) + 1)
        #expect(try second.headers.topVia()?.branch != (try first.headers.topVia()?.branch))
        let value = try #require(second.headers[answer])
        #expect(value.contains("username=\"1001\"") && value.contains("nonce=\"n1\""))
        #expect(!value.contains("secret1001"))
        #expect(second.body == InvitePeer.sdpOffer.bytes)
        // The 2xx to the authenticated INVITE is ACKed with its CSeq and the same credentials.
        h.receive(InvitePeer.reply(to: second, 200, body: InvitePeer.sdpAnswer))
        let ack = try #require(h.acks.first)
        #expect(try ack.headers.cseq()?.sequence == (try second.headers.cseq()!.sequence))
        #expect(ack.headers[answer] == value)
        // A second challenge with a fresh nonce after our answer means wrong credentials.
        var w = InviteSetup.caller(credentials: DigestCredentials(username: "1001", password: "wrong"))
        w.start()
        w.receive(
            InvitePeer.reply(
                to: w.requests[0], status, extra: [(challenge, "Digest realm=\"astra.test\", nonce=\"n1\"")]))
        w.receive(
            InvitePeer.reply(
                to: w.requests[1], status, extra: [(challenge, "Digest realm=\"astra.test\", nonce=\"n2\"")]))
        #expect(w.ended == .authenticationFailed(status: status))
    }

    @Test func preloadedRouteGoesIntoInviteAndCancel() throws {
        let proxy = SIPNameAddress(uri: try SIPURI(parsing: "sip:127.0.0.1:8089;transport=ws;lr"))
        var h = InviteHarness(
            InviteUsage(
                calling: InviteSetup.bob, from: InviteSetup.alice, offer: InvitePeer.sdpOffer,
                binding: InviteSetup.wss, routeSet: [proxy],
                ids: SeededIdentifierSource(seed: 1)))
        h.start()
        #expect(h.requests[0].headers.values(.route) == ["<sip:127.0.0.1:8089;transport=ws;lr>"])
        h.receive(InvitePeer.reply(to: h.requests[0], 180))
        h.hangUp()
        #expect(h.requests(.cancel).first?.headers.values(.route) == ["<sip:127.0.0.1:8089;transport=ws;lr>"])
    }
}

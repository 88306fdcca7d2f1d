import SIPCore
import Testing

@testable import SIPDialog

/// Two ``InviteUsage``s wired back to back on one virtual clock (no transactions, no loss):
/// whole calls, hold/resume, and real glare where both sides' 491 back-offs play out.
struct CallPair {
    var caller: InviteHarness
    var callee: InviteHarness?
    private var now: Duration = .zero
    private var seen = (
        callerRequests: 0, callerResponses: 0, callerACKs: 0,
        calleeRequests: 0, calleeResponses: 0, calleeACKs: 0
    )
    /// Answer every `remoteOffer` with this body (the media layer's part).
    var autoAnswer: SessionBody? = InvitePeer.sdpAnswer

    init(caller: InviteHarness) { self.caller = caller }

    /// Delivers every message not yet delivered, until both sides are quiet.
    mutating func pump() {
        var progress = true
        while progress {
            progress = false
            while seen.callerRequests < caller.requests.count {
                let request = InvitePeer.wire(caller.requests[seen.callerRequests])
                seen.callerRequests += 1
                progress = true
                if callee == nil {
                    callee = InviteHarness(
                        try! InviteUsage(
                            incoming: request, binding: InviteSetup.tcp,
                            ids: SeededIdentifierSource(seed: 99)))
                    callee!.start()
                } else {
                    deliver(request, toCallee: true)
                }
            }
            guard callee != nil else { return }
            // Requests first in both directions, so crossing requests really cross (glare).
            while seen.calleeRequests < callee!.requests.count {
                deliver(InvitePeer.wire(callee!.requests[seen.calleeRequests]), toCallee: false)
                seen.calleeRequests += 1
                progress = true
            }
            while seen.callerACKs < caller.acks.count {
                deliver(InvitePeer.wire(caller.acks[seen.callerACKs]), toCallee: true)
                seen.callerACKs += 1
                progress = true
            }
            while seen.calleeACKs < callee!.acks.count {
                deliver(InvitePeer.wire(callee!.acks[seen.calleeACKs]), toCallee: false)
                seen.calleeACKs += 1
                progress = true
            }
            while seen.calleeResponses < callee!.responses.count {
                caller.run(until: now)
                caller.receive(InvitePeer.wire(callee!.responses[seen.calleeResponses]))
                seen.calleeResponses += 1
                progress = true
            }
            while seen.callerResponses < caller.responses.count {
                callee!.run(until: now)
                callee!.receive(InvitePeer.wire(caller.responses[seen.callerResponses]))
                seen.callerResponses += 1
                progress = true
            }
        }
    }

    private mutating func deliver(_ request: SIPRequest, toCallee: Bool) {
        if toCallee {
            callee!.run(until: now)
            let before = callee!.events.count
            callee!.receive(request)
            answerOffers(in: &callee!, since: before)
        } else {
            caller.run(until: now)
            let before = caller.events.count
            caller.receive(request)
            answerOffers(in: &caller, since: before)
        }
    }

    private func answerOffers(in side: inout InviteHarness, since index: Int) {
        guard let autoAnswer else { return }
        let offered = side.events[index...].contains { if case .remoteOffer = $0 { true } else { false } }
        if offered { side.apply(try! side.usage.answerOffer(autoAnswer)) }
    }

    /// Runs both sides' timers in deadline order up to `limit`, delivering messages as they go.
    mutating func run(until limit: Duration) {
        pump()
        while true {
            let next = [caller.deadlines.values.min(), callee?.deadlines.values.min()].compactMap { $0 }.min()
            guard let next, next <= limit else { break }
            now = next
            caller.run(until: now)
            callee?.run(until: now)
            pump()
        }
        now = limit
        caller.run(until: now)
        callee?.run(until: now)
    }
}

@Suite struct InviteCallFlowTests {
    @Test func wholeCallWithHoldResumeAndBye() throws {
        var pair = CallPair(caller: InviteSetup.caller())
        pair.caller.start()
        pair.pump()
        var callee = try #require(pair.callee)
        callee.apply(try callee.usage.ring())
        pair.callee = callee
        pair.pump()
        pair.callee!.apply(try pair.callee!.usage.answer(InvitePeer.sdpAnswer))
        pair.pump()
        #expect(pair.caller.events == [.ringing, .answered(InvitePeer.sdpAnswer)])
        #expect(pair.callee!.events == [.confirmed(nil)])
        #expect(pair.caller.usage.dialog?.id.localTag == pair.callee!.usage.dialog?.id.remoteTag)

        pair.caller.apply(try pair.caller.usage.reinvite(offer: InvitePeer.holdOffer))
        pair.pump()
        #expect(pair.callee!.events.last == .remoteOffer(InvitePeer.holdOffer))
        #expect(pair.caller.events.last == .offerAnswered(InvitePeer.sdpAnswer))
        pair.run(until: .seconds(40))
        #expect(pair.callee!.responses.filter { $0.statusCode == 200 }.count == 2, "no 2xx retransmission once ACKed")

        pair.callee!.hangUp()
        pair.pump()
        #expect(pair.caller.ended == .remoteHangUp)
        #expect(pair.callee!.ended == .localHangUp)
        #expect(pair.caller.usage.isTerminated && pair.callee!.usage.isTerminated)
    }

    /// §14.1: both re-INVITE at once, both get 491; the callee (not the Call-ID owner, 0–2 s)
    /// retries first, then the caller (2.1–4 s); both offers complete.
    @Test func glareResolvesByBackOff() throws {
        var pair = CallPair(caller: InviteSetup.caller())
        pair.caller.start()
        pair.pump()
        pair.callee!.apply(try pair.callee!.usage.answer(InvitePeer.sdpAnswer))
        pair.pump()
        pair.caller.apply(try pair.caller.usage.reinvite(offer: InvitePeer.holdOffer))
        pair.callee!.apply(try pair.callee!.usage.reinvite(offer: InvitePeer.holdOffer))
        pair.pump()
        let callerGlare = pair.caller.events.compactMap { if case .glare(let d) = $0 { d } else { nil } }
        let calleeGlare = pair.callee!.events.compactMap { if case .glare(let d) = $0 { d } else { nil } }
        try #require(callerGlare.count == 1 && calleeGlare.count == 1)
        #expect(callerGlare[0] >= .milliseconds(2100) && calleeGlare[0] <= .seconds(2))
        pair.run(until: .seconds(5))
        #expect(pair.caller.events.filter { if case .offerAnswered = $0 { true } else { false } }.count == 1)
        #expect(pair.callee!.events.filter { if case .offerAnswered = $0 { true } else { false } }.count == 1)
        #expect(pair.caller.events.filter { if case .remoteOffer = $0 { true } else { false } }.count == 1)
        #expect(pair.callee!.events.filter { if case .remoteOffer = $0 { true } else { false } }.count == 1)
        #expect(pair.caller.usage.state == .confirmed && pair.callee!.usage.state == .confirmed)
    }

    /// RFC 4028 end to end: the caller asks for 90 s, the callee makes the caller refresher; the
    /// caller's UPDATEs keep the call alive for ten minutes; when they stop, the callee BYEs.
    @Test func sessionTimerKeepsCallAliveThenExpires() throws {
        var pair = CallPair(caller: InviteSetup.caller { $0.requestedSessionExpires = 90 })
        pair.caller.start()
        pair.pump()
        pair.callee!.apply(try pair.callee!.usage.answer(InvitePeer.sdpAnswer))
        pair.run(until: .seconds(600))
        #expect(pair.caller.requests(.update).count == 13)
        #expect(pair.caller.ended == nil && pair.callee!.ended == nil)
        pair.caller.apply(pair.caller.usage.timerFired(.sessionExpiry) + [.cancelTimer(.sessionRefresh)])
        #expect(pair.caller.ended == .sessionExpired)
    }

    @Test func calleeExpiresSessionWhenRefreshesStop() throws {
        var pair = CallPair(caller: InviteSetup.caller { $0.requestedSessionExpires = 90 })
        pair.caller.start()
        pair.pump()
        pair.callee!.apply(try pair.callee!.usage.answer(InvitePeer.sdpAnswer))
        pair.pump()
        pair.caller.apply([.cancelTimer(.sessionRefresh), .cancelTimer(.sessionExpiry)])
        pair.run(until: .seconds(61))
        #expect(pair.callee!.ended == .sessionExpired)
        #expect(pair.caller.ended == .remoteHangUp)
    }
}

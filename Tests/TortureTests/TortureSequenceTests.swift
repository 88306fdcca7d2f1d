import SIPCore
import Testing

@testable import Torture

/// The run machine driven event by event, timers fired by hand: virtual time, no socket.
@Suite struct TortureSequenceTests {
    static func machine(_ names: [String], reliable: Bool = false) -> TortureSequence {
        TortureSequence(
            .init(
                cases: names.map { TortureCatalog.named($0)! }, reliable: reliable,
                viaTransport: reliable ? "TCP" : "UDP",
                target: "127.0.0.1:5060", wait: .milliseconds(800), timeout: .seconds(2), tagSuffix: "-t"),
            ids: SeededIdentifierSource(seed: 1))
    }

    /// The ping's Call-ID from a `send` action.
    static func pingCallID(_ actions: [TortureSequence.Action]) -> String? {
        for case .send(let bytes, .ping) in actions {
            let text = String(decoding: bytes, as: UTF8.self)
            return text.split(separator: "\r\n").first { $0.hasPrefix("Call-ID: ") }.map { String($0.dropFirst(9)) }
        }
        return nil
    }

    static func timer(_ actions: [TortureSequence.Action]) -> Int? {
        for case .startTimer(let id, _) in actions { return id }
        return nil
    }

    static func reports(_ actions: [TortureSequence.Action]) -> [TortureResult] {
        actions.compactMap { if case .report(let r) = $0 { r } else { nil } }
    }

    @Test func udpPingMessagePingThenFinish() throws {
        var m = Self.machine(["badvers", "bigcode"])
        #expect(m.start() == [.connect])
        var actions = m.handle(.connected(sentBy: "127.0.0.1:40000"))
        let ping0 = try #require(Self.pingCallID(actions))
        #expect(Self.timer(actions) != nil)
        // The OPTIONS is answered: badvers goes out, its Via rewritten, with the wait's timer.
        actions = m.handle(.received(.init(status: 200, callID: ping0)))
        guard case .send(let bytes, .message("badvers")) = actions.first else { Issue.record("\(actions)"); return }
        #expect(String(decoding: bytes, as: UTF8.self).contains("SIP/7.0/UDP 127.0.0.1:40000;branch"))
        #expect(actions.last == .startTimer(2, .milliseconds(800)))
        // A final answer settles it at once: the next OPTIONS goes out without waiting.
        actions = m.handle(.received(.init(status: 505, callID: "badvers-call")))
        let ping1 = try #require(Self.pingCallID(actions))
        #expect(ping1 != ping0)
        #expect(m.handle(.timerFired(2)).isEmpty)  // the wait's timer is stale
        // ping1 answered → badvers is reported as a match, bigcode is sent.
        actions = m.handle(.received(.init(status: 200, callID: ping1)))
        let first = try #require(Self.reports(actions).first)
        #expect(first.torture.name == "badvers" && first.verdict.matches && first.aliveAfter)
        #expect(first.changes.map(\.edit) == [.viaSentBy, .fromTag])
        // bigcode (a response) must be dropped: only the wait's end moves on.
        let wait = try #require(Self.timer(actions))
        actions = m.handle(.timerFired(wait))
        let ping2 = try #require(Self.pingCallID(actions))
        actions = m.handle(.received(.init(status: 200, callID: ping2)))
        #expect(Self.reports(actions).map(\.verdict.matches) == [true])
        #expect(actions.suffix(2) == [.close, .finish(.completed)])
        #expect(m.isDone)
    }

    @Test func aLateAnswerCountsForTheMessageBeforeTheOptions() throws {
        var m = Self.machine(["bigcode"])
        _ = m.start()
        var actions = m.handle(.connected(sentBy: "127.0.0.1:40000"))
        actions = m.handle(.received(.init(status: 200, callID: Self.pingCallID(actions))))
        actions = m.handle(.timerFired(Self.timer(actions)!))
        let ping = Self.pingCallID(actions)
        #expect(m.handle(.received(.init(status: 400, callID: "late"))).isEmpty)
        actions = m.handle(.received(.init(status: 200, callID: ping)))
        let result = try #require(Self.reports(actions).first)
        #expect(!result.verdict.matches && result.observation.outcome == "400")
    }

    @Test func noAnswerToOptionsStopsTheRunNamingTheMessage() throws {
        var m = Self.machine(["wsinv", "esc01"])
        _ = m.start()
        var actions = m.handle(.connected(sentBy: "127.0.0.1:40000"))
        actions = m.handle(.received(.init(status: 200, callID: Self.pingCallID(actions))))
        actions = m.handle(.received(.init(status: 407, callID: "wsinv")))
        // The server froze: the OPTIONS after wsinv is never answered.
        actions = m.handle(.timerFired(Self.timer(actions)!))
        let result = try #require(Self.reports(actions).first)
        #expect(result.torture.name == "wsinv" && result.verdict.matches && !result.aliveAfter)
        guard case .finish(let end) = actions.last else { Issue.record("\(actions)"); return }
        #expect(end.whereStopped == "after wsinv")
        #expect(m.isDone && m.handle(.received(.init(status: 200))).isEmpty)
    }

    @Test func aDeadServerStopsBeforeTheFirstMessage() {
        var m = Self.machine(["wsinv"])
        _ = m.start()
        let actions = m.handle(.connectFailed("connection refused"))
        #expect(actions == [.close, .finish(.stopped(after: nil, reason: "connection failed: connection refused"))])
        #expect(TortureEnd.stopped(after: nil, reason: "").whereStopped == "before the first message")
    }

    @Test func aStreamGetsAConnectionPerMessageAndAWaitingFramerEndsInTheTimeout() throws {
        var m = Self.machine(["clerr", "mcl01"], reliable: true)
        _ = m.start()
        var actions = m.handle(.connected(sentBy: "127.0.0.1:41000"))
        #expect(
            String(decoding: actions.compactMap { if case .send(let b, _) = $0 { b } else { nil } }[0], as: UTF8.self)
                .contains("Via: SIP/2.0/TCP 127.0.0.1:41000;"))
        actions = m.handle(.received(.init(status: 200, callID: Self.pingCallID(actions))))
        // clerr leaves the server's framer waiting for 9999 octets: a 400 does not end the wait.
        #expect(m.handle(.received(.init(status: 400, callID: "clerr"))).isEmpty)
        actions = m.handle(.timerFired(Self.timer(actions)!))
        #expect(actions == [.close, .connect])
        actions = m.handle(.connected(sentBy: "127.0.0.1:41002"))
        actions = m.handle(.received(.init(status: 200, callID: Self.pingCallID(actions))))
        let clerr = try #require(Self.reports(actions).first)
        #expect(clerr.observation.outcome == "400" && clerr.verdict.reason == "the connection stayed open")
        // mcl01: the server closes the connection, which ends the wait.
        actions = m.handle(.closed)
        #expect(actions == [.close, .connect])
        actions = m.handle(.connected(sentBy: "127.0.0.1:41004"))
        actions = m.handle(.received(.init(status: 200, callID: Self.pingCallID(actions))))
        let mcl01 = try #require(Self.reports(actions).first)
        #expect(mcl01.verdict.matches && mcl01.observation.outcome == "closed")
        #expect(actions.last == .finish(.completed))
    }

    @Test func aConnectionRefusedMidRunNamesThePreviousMessage() throws {
        var m = Self.machine(["mcl01", "wsinv"], reliable: true)
        _ = m.start()
        var actions = m.handle(.connected(sentBy: "127.0.0.1:41000"))
        actions = m.handle(.received(.init(status: 200, callID: Self.pingCallID(actions))))
        _ = m.handle(.closed)
        actions = m.handle(.connectFailed("connection refused"))
        #expect(Self.reports(actions).map(\.torture.name) == ["mcl01"])
        #expect(actions.last == .finish(.stopped(after: "mcl01", reason: "connection failed: connection refused")))
    }
}

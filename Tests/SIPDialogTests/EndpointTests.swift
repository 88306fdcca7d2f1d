import AstraTestSupport
import SIPCore
import SIPTransport
import Testing
@testable import SIPDialog

/// Two endpoints joined by a loopback channel, driven in virtual time.
struct EndpointPair {
    let clock = TestClock()
    let a: SIPEndpoint
    let b: SIPEndpoint
    let channelA: LoopbackChannel
    let channelB: LoopbackChannel
    let ids = SeededIdentifierSource(seed: 42)

    init(transport: TransportKind = .udp, faults: LoopbackFaults = .none, startB: Bool = true,
         settingsB: EndpointSettings = EndpointSettings()) async {
        (channelA, channelB) = LoopbackChannel.pair(transport: transport, clock: clock, faults: faults, seed: 9)
        a = SIPEndpoint(channel: channelA, clock: clock, ids: SeededIdentifierSource(seed: 1))
        b = SIPEndpoint(channel: channelB, clock: clock, ids: SeededIdentifierSource(seed: 2), settings: settingsB)
        guard startB else { return }
        await a.start()
        await b.start()
        let (a, b) = (a, b)
        _ = await settle {
            let up = await a.binding != nil
            let alsoUp = await b.binding != nil
            return up && alsoUp
        }
    }

    /// Lets the actors run until `condition` holds (bounded; no wall-clock sleep).
    func settle(_ condition: () async -> Bool) async -> Bool {
        for _ in 0..<2_000 {
            if await condition() { return true }
            await Task.yield()
        }
        return await condition()
    }

    /// Advances virtual time in `step`s up to `limit`, letting work settle after each step,
    /// until `condition` holds. Returns the virtual time at which it held.
    func run(until limit: Duration, step: Duration = .milliseconds(50), _ condition: () async -> Bool) async -> Duration? {
        while clock.now.offset <= limit {
            if await settle(condition) { return clock.now.offset }
            clock.advance(by: step)
        }
        return nil
    }

    /// Moves virtual time from one armed deadline to the next, up to `limit`, until `condition`
    /// holds; returns the virtual time at which it held. Deterministic under any CPU load: time
    /// moves only once every timer that was sleeping before the jump is armed again (an
    /// endpoint's timer task sleeps for a delay counted from when it starts, so moving time
    /// before it sleeps would shift every later retransmission), or once `condition` holds.
    /// The waits are bounded on the wall clock (the timer tasks run on other threads), not in
    /// virtual time.
    func runDeadlines(until limit: Duration, _ condition: () async -> Bool) async -> Duration? {
        let clock = clock
        _ = await eventually(timeout: .seconds(10), every: .milliseconds(1)) { clock.sleeperCount >= 1 }
        while true {
            if await settle(condition) { return clock.now.offset }
            guard let next = clock.nextDeadline, next.offset <= limit else { return nil }
            let armed = clock.sleeperCount
            clock.advance(to: next)
            _ = await eventually(timeout: .seconds(10), every: .milliseconds(1)) {
                clock.sleeperCount >= armed ? true : await condition()
            }
        }
    }

    func request(_ method: SIPMethod, branch: String? = nil) -> SIPRequest {
        let uri = try! SIPURI(parsing: "sip:1002@127.0.0.1:5060")
        var headers = SIPHeaders()
        headers.add(.via, SIPVia(transport: .udp, host: "127.0.0.1", port: 5070, branch: branch ?? ids.branch()).description)
        headers.add(.maxForwards, "70")
        headers.add(.from, "<sip:1001@127.0.0.1>;tag=\(ids.tag())")
        headers.add(.to, "<sip:1002@127.0.0.1>")
        headers.add(.callID, ids.callID())
        headers.add(.cseq, SIPCSeq(1, method).description)
        return SIPRequest(method: method, uri: uri, headers: headers)
    }
}

/// Collects an async stream in the background so tests can look at it while time moves.
final class Collector<Element: Sendable>: Sendable {
    private let items = Mutex<[Element]>([])
    init(_ stream: AsyncStream<Element>) {
        Task { for await item in stream { self.items.withLock { $0.append(item) } } }
    }
    var all: [Element] { items.withLock { $0 } }
}

import Synchronization

@Suite struct EndpointTests {
    @Test func optionsIsAnsweredByThePeerEndpointAndReportedAsQualify() async throws {
        let net = await EndpointPair()
        let events = Collector(net.b.events)
        let updates = Collector(await net.a.startTransaction(net.request(.options)))
        let done = await net.run(until: .seconds(1)) { updates.all.contains { if case .response = $0 { true } else { false } } }
        #expect(done == .zero)  // no faults: answered without time passing
        guard case .response(let ok) = updates.all.first else {
            Issue.record("no response: \(updates.all)")
            return
        }
        #expect(ok.statusCode == 200)
        #expect(ok.headers[.allow]?.contains("OPTIONS") == true)
        #expect(ok.headers[.accept] == "application/sdp")
        // The peer's event reaches its collector task on another thread: a bounded positive wait.
        #expect(await eventually { events.all.contains { if case .qualifyAnswered = $0 { true } else { false } } })
    }

    @Test func totalLossEndsWithTimerFAtSixtyFourT1() async {
        let net = await EndpointPair(faults: LoopbackFaults(loss: 1.0))
        let updates = Collector(await net.a.startTransaction(net.request(.options)))
        let at = await net.runDeadlines(until: .seconds(40)) {
            updates.all.contains { if case .ended(.timeout) = $0 { true } else { false } }
        }
        #expect(at == .seconds(32))
        // Timer E: sent at 0, 0.5, 1.5, 3.5, 7.5, 11.5 … 31.5 s → 11 transmissions.
        #expect(await eventually { net.channelA.sentMessages.count >= 11 })
        #expect(net.channelA.sentMessages.count == 11)
    }

    @Test func lossyNetworkStillCompletesThroughRetransmissions() async {
        let net = await EndpointPair(faults: LoopbackFaults(loss: 0.3, delay: .milliseconds(20)))
        var completed = 0
        for _ in 0..<10 {
            let updates = Collector(await net.a.startTransaction(net.request(.options)))
            let done = await net.run(until: net.clock.now.offset + .seconds(33), step: .milliseconds(250)) {
                updates.all.contains {
                    switch $0 {
                    case .response(let r): r.statusCode == 200
                    case .ended: true
                    }
                }
            }
            #expect(done != nil)
            if updates.all.contains(where: { if case .response(let r) = $0 { r.statusCode == 200 } else { false } }) {
                completed += 1
            }
        }
        // A round trip survives 30 % loss each way with p = 0.49; eleven transmissions before
        // Timer F leave a failure chance of 0.51^11 ≈ 0.06 % per transaction (seeded: none here).
        #expect(completed == 10)
        #expect(net.channelA.sentMessages.count > 10)
    }

    @Test func duplicatedResponsesReachTheTransactionUserOnce() async {
        let net = await EndpointPair(faults: LoopbackFaults(duplication: 1.0))
        let updates = Collector(await net.a.startTransaction(net.request(.options)))
        _ = await net.run(until: .seconds(6), step: .milliseconds(500)) {
            updates.all.contains { if case .ended = $0 { true } else { false } }
        }
        let finals = updates.all.filter { if case .response = $0 { true } else { false } }
        #expect(finals.count == 1)
    }

    @Test func inviteRejectedIsACKedAndServerStopsRetransmitting() async throws {
        let net = await EndpointPair()
        let serverEvents = Collector(net.b.events)
        let invite = net.request(.invite)
        let updates = Collector(await net.a.startTransaction(invite))
        _ = await net.settle { serverEvents.all.contains { if case .request = $0 { true } else { false } } }
        guard case .request(let incoming) = serverEvents.all.first(where: { if case .request = $0 { true } else { false } }) else {
            Issue.record("no INVITE at the server")
            return
        }
        await net.b.respond(to: incoming, with: SIPResponse(to: incoming.request, statusCode: 486, toTag: "b1"))
        _ = await net.run(until: .seconds(1)) { updates.all.contains { if case .response(let r) = $0 { r.statusCode == 486 } else { false } } }
        #expect(updates.all.compactMap { if case .response(let r) = $0 { r.statusCode } else { nil } } == [100, 486])
        // The client ACKed the 486; the server's Timer G retransmissions stop after the ACK.
        _ = await net.run(until: .seconds(10), step: .milliseconds(250)) { false }
        let acks = net.channelA.sentMessages.filter { $0.starts(with: Array("ACK ".utf8)) }
        #expect(acks.count == 1)
        let serverSent = net.channelB.sentMessages.map { String(decoding: $0.prefix(12), as: UTF8.self) }
        #expect(serverSent == ["SIP/2.0 100 ", "SIP/2.0 486 "])
    }

    @Test func cancelIsAnsweredAndReportedForThePendingInvite() async throws {
        let net = await EndpointPair()
        let serverEvents = Collector(net.b.events)
        let invite = net.request(.invite)
        _ = Collector(await net.a.startTransaction(invite))
        _ = await net.settle { serverEvents.all.contains { if case .request = $0 { true } else { false } } }
        var cancel = invite
        cancel.method = .cancel
        cancel.headers.set(.cseq, SIPCSeq(1, .cancel).description)
        let cancelled = Collector(await net.a.startTransaction(cancel))
        _ = await net.run(until: .seconds(1)) { cancelled.all.contains { if case .ended = $0 { true } else { false } } }
        #expect(cancelled.all.contains { if case .response(let r) = $0 { r.statusCode == 200 } else { false } })
        #expect(await eventually { serverEvents.all.contains { if case .cancelled = $0 { true } else { false } } })
    }

    @Test func flowDeathFailsPendingTransactions() async {
        let net = await EndpointPair(transport: .tcp, faults: LoopbackFaults(loss: 1.0))
        let events = Collector(net.a.events)
        let updates = Collector(await net.a.startTransaction(net.request(.options)))
        _ = await net.settle { !net.channelA.sentMessages.isEmpty }
        net.channelA.fail()
        let failed = await net.settle { updates.all.contains { if case .ended(.transportError) = $0 { true } else { false } } }
        #expect(failed)
        #expect(await eventually { events.all.contains { if case .flowDown = $0 { true } else { false } } })
        // Reliable transport: no retransmission was ever made.
        #expect(net.channelA.sentMessages.count == 1)
    }

    @Test func cseqMethodMismatchGets400() async {
        let net = await EndpointPair()
        var bad = net.request(.info)
        bad.headers.set(.cseq, SIPCSeq(1, .bye).description)
        let updates = Collector(await net.a.startTransaction(bad))
        _ = await net.run(until: .seconds(1)) { updates.all.contains { if case .response = $0 { true } else { false } } }
        #expect(updates.all.contains { if case .response(let r) = $0 { r.statusCode == 400 } else { false } })
    }
}

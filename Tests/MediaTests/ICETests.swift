import SIPCore
import Testing

@testable import Media

/// Two ICE agents on a virtual network (latency, loss by direction) driven in virtual time:
/// the earliest of both agents' deadlines and the in-flight datagrams runs next.
struct ICETestNetwork {
    static let addressA = UDPSocket.Address(host: "127.0.0.1", port: 1000)
    static let addressB = UDPSocket.Address(host: "127.0.0.1", port: 2000)

    var a: ICEAgent
    var b: ICEAgent
    var now: Duration = .zero
    var latency: Duration = .milliseconds(5)
    var inFlight: [(at: Duration, bytes: [UInt8], from: UDPSocket.Address, to: UDPSocket.Address)] = []
    var eventsA: [(Duration, ICEAgent.Event)] = []
    var eventsB: [(Duration, ICEAgent.Event)] = []
    /// Datagrams to lose before delivering any (counted over both directions).
    var loseFirst = 0
    /// Drop what A sends / what B sends.
    var dropFromA = false
    var dropFromB = false
    /// B is an ICE-lite agent (RFC 8445 §2.5): answers checks, never sends its own.
    var bIsLite = false {
        didSet {
            var c = ICEAgent.Configuration()
            c.lite = bIsLite
            b = ICEAgent(
                configuration: c, role: .controlled, ufrag: "ufB1", pwd: "passwordB-0123456789abcd",
                ids: SeededIdentifierSource(seed: 99))
            _ = b.addHostCandidates(["127.0.0.1"], port: Self.addressB.port)
        }
    }

    init(roleA: ICEAgent.Role = .controlling, roleB: ICEAgent.Role = .controlled, seed: UInt64 = 1) {
        var c = ICEAgent.Configuration()
        c.software = "astra-test"
        a = ICEAgent(
            configuration: c, role: roleA, ufrag: "ufA1", pwd: "passwordA-0123456789abcd",
            ids: SeededIdentifierSource(seed: seed))
        b = ICEAgent(
            configuration: c, role: roleB, ufrag: "ufB1", pwd: "passwordB-0123456789abcd",
            ids: SeededIdentifierSource(seed: seed + 100))
        _ = a.addHostCandidates(["127.0.0.1"], port: Self.addressA.port)
        _ = b.addHostCandidates(["127.0.0.1"], port: Self.addressB.port)
    }

    mutating func exchangeDescriptions(aFirst: Bool = true) {
        let (ua, pa) = a.localCredentials
        let (ub, pb) = b.localCredentials
        let ca = a.localCandidates
        let cb = b.localCandidates
        if aFirst {
            absorb(b.setRemote(ufrag: ua, pwd: pa, candidates: ca, now: now), fromA: false)
            absorb(a.setRemote(ufrag: ub, pwd: pb, candidates: cb, lite: bIsLite, now: now), fromA: true)
        } else {
            absorb(a.setRemote(ufrag: ub, pwd: pb, candidates: cb, lite: bIsLite, now: now), fromA: true)
            absorb(b.setRemote(ufrag: ua, pwd: pa, candidates: ca, now: now), fromA: false)
        }
    }

    mutating func absorb(_ actions: [ICEAgent.Action], fromA: Bool) {
        for action in actions {
            switch action {
            case .send(let bytes, let to):
                if fromA ? dropFromA : dropFromB { continue }
                if loseFirst > 0 {
                    loseFirst -= 1
                    continue
                }
                inFlight.append((now + latency, bytes, fromA ? Self.addressA : Self.addressB, to))
            case .sendRelayed:
                Issue.record("no relayed candidate here")
            case .event(let e):
                if fromA { eventsA.append((now, e)) } else { eventsB.append((now, e)) }
            }
        }
    }

    /// Runs until `end` (virtual).
    mutating func run(until end: Duration) {
        while true {
            let next = [a.nextDeadline, b.nextDeadline, inFlight.map(\.at).min()].compactMap { $0 }.min()
            guard let next, next <= end else { break }
            now = max(now, next)
            if let i = inFlight.firstIndex(where: { $0.at <= now }) {
                let d = inFlight.remove(at: i)
                if d.to == Self.addressA {
                    absorb(a.receive(d.bytes, from: d.from, now: now), fromA: true)
                } else if d.to == Self.addressB {
                    absorb(b.receive(d.bytes, from: d.from, now: now), fromA: false)
                }
                continue
            }
            if let d = a.nextDeadline, d <= now { absorb(a.tick(now: now), fromA: true) }
            if let d = b.nextDeadline, d <= now { absorb(b.tick(now: now), fromA: false) }
        }
        now = end
    }

    func firstTime(_ events: [(Duration, ICEAgent.Event)], _ match: (ICEAgent.Event) -> Bool) -> Duration? {
        events.first { match($0.1) }?.0
    }
}

@Suite struct ICETests {
    /// RFC 8445 §5.1.2.1 and §6.1.2.3 formulas with hand-computed values.
    @Test func priorityFormulas() {
        #expect(ICEAgentCandidate.priority(kind: .host, localPreference: 65535) == 2_130_706_431)
        #expect(ICEAgentCandidate.priority(kind: .serverReflexive, localPreference: 65535) == 1_694_498_815)
        #expect(ICEAgentCandidate.priority(kind: .peerReflexive, localPreference: 65535) == 1_862_270_975)
        #expect(ICEAgentCandidate.priority(kind: .relayed, localPreference: 0) == 255)
        // G = 10, D = 20: 2^32·10 + 2·20 + 0; swapped: + 1.
        #expect(ICECandidatePair.priority(controlling: 10, controlled: 20) == (10 << 32) + 40)
        #expect(ICECandidatePair.priority(controlling: 20, controlled: 10) == (10 << 32) + 41)
    }

    /// Pairing order (§6.1.2.5: priority descending), family/scope rules, initial states
    /// (§6.1.2.6: one Waiting pair per foundation) and the pacing of checks by Ta.
    @Test func pairingOrderInitialStatesAndPacing() {
        var agent = ICEAgent(role: .controlling, ufrag: "u", pwd: "p", ids: SeededIdentifierSource(seed: 3))
        _ = agent.addHostCandidates(["192.0.2.1", "127.0.0.1"], port: 4000)
        let remotes = [
            ICEAgentCandidate(
                kind: .serverReflexive, address: .init(host: "198.51.100.7", port: 9), priority: 1_694_498_815,
                foundation: "s"),
            ICEAgentCandidate(
                kind: .host, address: .init(host: "192.0.2.9", port: 7), priority: 2_130_706_431, foundation: "h"),
            ICEAgentCandidate(
                kind: .host, address: .init(host: "192.0.2.10", port: 7), priority: 2_130_706_175, foundation: "h"),
            ICEAgentCandidate(
                kind: .host, address: .init(host: "2001:db8::1", port: 7), priority: 2_130_706_431, foundation: "h6"),
            ICEAgentCandidate(
                kind: .host, address: .init(host: "127.0.0.1", port: 5), priority: 2_000_000_000, foundation: "l"),
        ]
        let actions = agent.setRemote(ufrag: "r", pwd: "rp", candidates: remotes, now: .zero)
        let order = agent.pairs.map { "\($0.local.address.host)->\($0.remote.address.host)" }
        #expect(
            order == [
                "192.0.2.1->192.0.2.9", "192.0.2.1->192.0.2.10", "127.0.0.1->127.0.0.1", "192.0.2.1->198.51.100.7",
            ])
        #expect(zip(agent.pairs, agent.pairs.dropFirst()).allSatisfy { $0.priority > $1.priority })
        // The two pairs to 192.0.2.9/.10 share a foundation: the second starts Frozen. The
        // first one is already in progress (sent at t=0).
        #expect(agent.pairs.map(\.state) == [.inProgress, .frozen, .waiting, .waiting])
        #expect(actions.filter { if case .send = $0 { true } else { false } }.count == 1)
        #expect(agent.nextDeadline == .milliseconds(20))  // Ta
        let next = agent.tick(now: .milliseconds(20))
        #expect(next.count == 1 && agent.pairs[2].state == .inProgress)
        if case .send(_, let to) = next.first { #expect(to.host == "127.0.0.1") }
    }

    @Test func twoAgentsReachCompletedWithTheSamePair() {
        var net = ICETestNetwork()
        net.exchangeDescriptions()
        net.run(until: .seconds(2))
        #expect(net.a.state == .completed && net.b.state == .completed)
        #expect(net.a.selectedPair?.remote.address == ICETestNetwork.addressB)
        #expect(net.b.selectedPair?.remote.address == ICETestNetwork.addressA)
        let doneA = net.firstTime(net.eventsA) { $0 == .stateChanged(.completed) }
        let doneB = net.firstTime(net.eventsB) { $0 == .stateChanged(.completed) }
        // Check (1 RTT) then the nominating check (1 RTT): 20 ms on a 5 ms one-way link.
        #expect(doneA == .milliseconds(20))
        #expect(doneB! <= .milliseconds(20))
        #expect(net.a.role == .controlling && net.b.role == .controlled)
    }

    /// Lost checks are retransmitted after the check RTO (250 ms, RFC 8489 §6.2.1 schedule):
    /// with both first checks lost the agents still complete, one RTO later.
    @Test func lostChecksAreRetransmitted() {
        var net = ICETestNetwork()
        net.loseFirst = 2
        net.exchangeDescriptions()
        net.run(until: .seconds(3))
        #expect(net.a.state == .completed && net.b.state == .completed)
        let done = net.firstTime(net.eventsA) { $0 == .stateChanged(.completed) }
        #expect(done != nil && done! >= .milliseconds(250) && done! <= .milliseconds(300))
    }

    /// WEBRTC-NOTES: the peer's checks arrive before its description; they are answered and
    /// its address learnt as peer-reflexive, and the triggered check waits for the description.
    @Test func checksAnsweredBeforeTheRemoteDescription() {
        // A has B's description and starts checking; B learns A's only 100 ms later.
        var net = ICETestNetwork()
        let (ua, pa) = net.a.localCredentials
        let (ub, pb) = net.b.localCredentials
        net.absorb(net.a.setRemote(ufrag: ub, pwd: pb, candidates: net.b.localCandidates, now: .zero), fromA: true)
        net.run(until: .milliseconds(100))
        #expect(net.a.state == .connected || net.a.state == .completed)
        #expect(net.b.state == .new)
        #expect(
            net.eventsB.contains {
                if case .peerReflexiveRemote(let c) = $0.1 { c.address == ICETestNetwork.addressA } else { false }
            })
        net.absorb(net.b.setRemote(ufrag: ua, pwd: pa, candidates: net.a.localCandidates, now: net.now), fromA: false)
        net.run(until: .milliseconds(300))
        #expect(net.a.state == .completed && net.b.state == .completed)
    }

    /// §7.3.1.1 / §7.2.5.1: both agents think they control (or both are controlled); the
    /// tie-breakers decide, one switches, and the agents still complete.
    @Test(arguments: [ICEAgent.Role.controlling, .controlled])
    func roleConflictRepaired(role: ICEAgent.Role) {
        var net = ICETestNetwork(roleA: role, roleB: role, seed: 7)
        net.exchangeDescriptions()
        net.run(until: .seconds(2))
        #expect(net.a.role != net.b.role)
        let switched = (net.eventsA + net.eventsB).filter { if case .roleChanged = $0.1 { true } else { false } }
        #expect(switched.count == 1)
        #expect(net.a.state == .completed && net.b.state == .completed)
        let controlling = net.a.role == .controlling ? net.a : net.b
        let controlled = net.a.role == .controlling ? net.b : net.a
        // The agent with the larger tie-breaker is the one that controls.
        #expect(controlling.tieBreaker > controlled.tieBreaker)
    }

    /// RFC 7675: consent checks every ~5 s (4–6 s) keep the pair; when the peer goes silent
    /// the agent fails 30 s after the last response (so 24–30 s after the cut), not before.
    @Test func consentFreshnessAndLoss() throws {
        var net = ICETestNetwork()
        net.exchangeDescriptions()
        net.run(until: .seconds(60))
        #expect(net.a.state == .completed && net.b.state == .completed)
        let consentChecks = net.eventsA.filter { if case .consentLost = $0.1 { true } else { false } }
        #expect(consentChecks.isEmpty)
        net.dropFromB = true  // B's responses (and checks) no longer reach A
        let cut = net.now
        net.run(until: cut + .seconds(23))
        #expect(net.a.state == .completed)
        net.run(until: cut + .seconds(40))
        #expect(net.a.state == .failed)
        let lostAt = try #require(net.firstTime(net.eventsA) { $0 == .consentLost })
        #expect(lostAt - cut >= .seconds(24) && lostAt - cut <= .seconds(30))
    }

    /// RFC 8445 §6.1.1: a full agent facing an ICE-lite peer takes the controlling role and
    /// does all the checking and nomination.
    @Test func liteRemoteMakesUsControlling() {
        var net = ICETestNetwork(roleA: .controlled, roleB: .controlled)
        net.bIsLite = true
        net.exchangeDescriptions(aFirst: false)
        net.run(until: .seconds(2))
        #expect(net.a.role == .controlling)
        #expect(net.a.state == .completed && net.b.state == .completed)
    }

    @Test func unreachableCandidatesFail() {
        var net = ICETestNetwork()
        net.dropFromA = true
        net.dropFromB = true
        net.exchangeDescriptions()
        net.run(until: .seconds(60))
        #expect(net.a.state == .failed && net.b.state == .failed)
    }

    /// §9: new credentials on both sides; the agents complete again with the new ufrags.
    @Test func iceRestart() throws {
        var net = ICETestNetwork()
        net.exchangeDescriptions()
        net.run(until: .seconds(1))
        #expect(net.a.state == .completed)
        net.absorb(net.a.restart(ufrag: "ufA2", pwd: "passwordA-restart-000000"), fromA: true)
        net.absorb(net.b.restart(ufrag: "ufB2", pwd: "passwordB-restart-000000"), fromA: false)
        #expect(net.a.state == .new && net.a.selectedPair != nil)
        net.exchangeDescriptions()
        net.run(until: .seconds(2))
        #expect(net.a.state == .completed && net.b.state == .completed)
        #expect(net.a.remoteCredentials?.ufrag == "ufB2")
    }

    /// §9 with SIP offer/answer: the offerer restarts first and the answerer only when the
    /// re-INVITE reaches it (here: 40 s later, past the 30 s consent timeout). Meanwhile media
    /// stays on the old pair and consent keeps working both ways with the previous credentials;
    /// then the new generation's checks nominate a pair and the old credentials are dropped.
    @Test func iceRestartKeepsTheOldPairAndConsentUntilTheNewOneIsNominated() throws {
        var net = ICETestNetwork()
        net.exchangeDescriptions()
        net.run(until: .seconds(1))
        let old = try #require(net.a.selectedPair)
        net.absorb(net.a.restart(ufrag: "ufA2", pwd: "passwordA-restart-000000"), fromA: true)
        net.run(until: .seconds(41))
        #expect(net.a.selectedPair == old && net.a.state == .new)
        #expect(net.b.state == .completed)
        let lost = (net.eventsA + net.eventsB).contains { $0.1 == .consentLost }
        #expect(!lost, "consent on the old pair must survive the restart")
        #expect(net.a.lastConsent! > .seconds(35) && net.b.lastConsent! > .seconds(35))
        // The re-INVITE arrives: B restarts and both take the other's new description.
        net.absorb(net.b.restart(ufrag: "ufB2", pwd: "passwordB-restart-000000"), fromA: false)
        let restartAt = net.now
        net.exchangeDescriptions()
        net.run(until: .seconds(42))
        #expect(net.a.state == .completed && net.b.state == .completed)
        let selectedAgain = net.firstTime(net.eventsA.filter { $0.0 >= restartAt }) {
            if case .selectedPair = $0 { true } else { false }
        }
        #expect(selectedAgain != nil && selectedAgain! - restartAt < .milliseconds(100))
        #expect(net.a.selectedPair?.id != old.id && net.a.previousGeneration == nil && net.b.previousGeneration == nil)
        // Old credentials are refused once the restart is over (RFC 8445 §9: new generation).
        let stale = STUNMessage(
            .request, transactionID: [UInt8](repeating: 7, count: 12),
            attributes: [.username("ufA1:ufB1"), .priority(1), .iceControlled(1)])
        let out = net.a.receive(
            stale.encoded(integrity: .sha1(key: Array("passwordA-0123456789abcd".utf8))),
            from: ICETestNetwork.addressB, now: net.now)
        guard case .send(let bytes, _) = try #require(out.first) else { return }
        #expect(try STUNMessage(parsing: bytes).errorCode?.code == 401)
    }

    /// RFC 8445 §5.1.1.2 without trickle: a dead STUN server ends gathering after
    /// `gatheringTimeout` (500 ms) of virtual time, with the request sent 3 times (RTO 100 ms
    /// doubling) and nothing left scheduled; a late response adds no candidate.
    @Test func gatheringGivesUpOnADeadSTUNServer() throws {
        var agent = ICEAgent(role: .controlling, ufrag: "u", pwd: "p", ids: SeededIdentifierSource(seed: 5))
        _ = agent.addHostCandidates(["192.0.2.1"], port: 5000)
        let server = UDPSocket.Address(host: "198.51.100.1", port: 3478)
        var sends: [Duration] = []
        var completeAt: Duration?
        var requestID: [UInt8] = []
        func absorb(_ actions: [ICEAgent.Action], at now: Duration) {
            for action in actions {
                switch action {
                case .send(let bytes, let to):
                    #expect(to == server)
                    sends.append(now)
                    requestID = (try? STUNMessage(parsing: bytes))?.transactionID ?? []
                case .event(.gatheringComplete): completeAt = now
                case .event, .sendRelayed: break
                }
            }
        }
        absorb(agent.gatherServerReflexive(server: server, now: .zero), at: .zero)
        while let next = agent.nextDeadline, next <= .seconds(60) {
            absorb(agent.tick(now: next), at: next)
        }
        #expect(completeAt == .milliseconds(500))
        #expect(sends == [.zero, .milliseconds(100), .milliseconds(300)])
        #expect(agent.nextDeadline == nil)
        let mapped = try #require(STUNTransportAddress(host: "203.0.113.5", port: 61000))
        let late = STUNMessage(
            .successResponse, transactionID: requestID,
            attributes: [.xorMappedAddress(mapped, transactionID: requestID)])
        #expect(agent.receive(late.encoded(), from: server, now: .seconds(1)).isEmpty)
        #expect(!agent.localCandidates.contains { $0.kind == .serverReflexive })
    }

    /// §5.1.2.1 / §5.1.1.3: a server-reflexive candidate takes type preference 100 and its
    /// base's local preference; its foundation differs from the host's and depends on the base
    /// and the STUN server.
    @Test func serverReflexivePriorityAndFoundation() {
        let f = ICEAgentCandidate.foundation
        #expect(f(.serverReflexive, "192.0.2.1", "198.51.100.1") == f(.serverReflexive, "192.0.2.1", "198.51.100.1"))
        #expect(f(.serverReflexive, "192.0.2.1", "198.51.100.1") != f(.host, "192.0.2.1", nil))
        #expect(f(.serverReflexive, "192.0.2.1", "198.51.100.1") != f(.serverReflexive, "192.0.2.7", "198.51.100.1"))
        #expect(f(.serverReflexive, "192.0.2.1", "198.51.100.1") != f(.serverReflexive, "192.0.2.1", "198.51.100.2"))
        let expected: UInt32 = (100 << 24) + (65535 << 8) + 255
        #expect(ICEAgentCandidate.priority(kind: .serverReflexive, localPreference: 65535) == expected)
    }

    /// RFC 8489 §9.1.3 / §6.3.1: wrong credentials get 401 without integrity; an unknown
    /// comprehension-required attribute gets 420 with UNKNOWN-ATTRIBUTES.
    @Test func badCredentialsAndUnknownAttributes() throws {
        var agent = ICEAgent(role: .controlled, ufrag: "me", pwd: "mypassword", ids: SeededIdentifierSource(seed: 1))
        _ = agent.addHostCandidates(["127.0.0.1"], port: 1)
        let peer = UDPSocket.Address(host: "127.0.0.1", port: 2)
        let id = [UInt8](repeating: 1, count: 12)
        func answer(_ m: STUNMessage, key: String) throws -> STUNMessage {
            let out = agent.receive(m.encoded(integrity: .sha1(key: Array(key.utf8))), from: peer, now: .zero)
            guard case .send(let bytes, _) = try #require(out.first) else { throw STUNError(.notSTUN) }
            return try STUNMessage(parsing: bytes)
        }
        let wrong = try answer(STUNMessage(.request, transactionID: id, attributes: [.username("me:you")]), key: "nope")
        #expect(wrong.errorCode?.code == 401 && !wrong.hasIntegrity)
        let unknown = try answer(
            STUNMessage(
                .request, transactionID: id, attributes: [.username("me:you"), STUNAttribute(type: 0x0042, value: [1])]),
            key: "mypassword")
        #expect(unknown.errorCode?.code == 420 && unknown.verifyIntegrity(key: Array("mypassword".utf8)))
        #expect(unknown.attribute(STUNAttribute.unknownAttributes)?.value == [0x00, 0x42])
        let ok = try answer(
            STUNMessage(.request, transactionID: id, attributes: [.username("me:you"), .priority(5)]), key: "mypassword"
        )
        #expect(ok.messageClass == .successResponse && ok.mappedAddress?.socketAddress == peer)
    }

    @Test func serverReflexiveGathering() throws {
        var agent = ICEAgent(role: .controlling, ufrag: "u", pwd: "p", ids: SeededIdentifierSource(seed: 4))
        _ = agent.addHostCandidates(["192.0.2.1"], port: 5000)
        let server = UDPSocket.Address(host: "198.51.100.1", port: 3478)
        let out = agent.gatherServerReflexive(server: server, now: .zero)
        guard case .send(let bytes, let to) = try #require(out.first) else { return }
        #expect(to == server)
        let request = try STUNMessage(parsing: bytes)
        let mapped = try #require(STUNTransportAddress(host: "203.0.113.5", port: 61000))
        let response = STUNMessage(
            .successResponse, transactionID: request.transactionID,
            attributes: [.xorMappedAddress(mapped, transactionID: request.transactionID)])
        let events = agent.receive(response.encoded(), from: server, now: .milliseconds(30))
        let srflx = try #require(agent.localCandidates.first { $0.kind == .serverReflexive })
        #expect(srflx.address == mapped.socketAddress && srflx.base.host == "192.0.2.1")
        #expect(srflx.sdp.value.contains("typ srflx raddr 192.0.2.1 rport 5000"))
        #expect(srflx.priority == ICEAgentCandidate.priority(kind: .serverReflexive, localPreference: 65535))
        #expect(
            srflx.foundation
                == ICEAgentCandidate.foundation(kind: .serverReflexive, baseHost: "192.0.2.1", server: "198.51.100.1"))
        #expect(events.contains(.event(.gatheringComplete)))
    }

    @Test func hostInterfacesIncludeLoopbackOnlyWhenAsked() {
        #expect(ICEHostInterfaces.addresses(includeLoopback: true).contains("127.0.0.1"))
        #expect(!ICEHostInterfaces.addresses(includeLoopback: false).contains("127.0.0.1"))
    }
}

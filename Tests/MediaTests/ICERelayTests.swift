import SIPCore
import Testing

@testable import Media

/// ICE with a relayed candidate (RFC 8445 §5.1.1.2, RFC 8656) in virtual time: agent A owns a
/// TURN allocation whose relayed address is ``relay``; the simulated server forwards what A
/// sends through it (``ICEAgent/Action/sendRelayed(_:to:)``) so that it arrives from the
/// relayed address, and hands A what arrives there with `localAddress` = the relayed address.
struct ICERelayNetwork {
    static let hostA = UDPSocket.Address(host: "192.0.2.1", port: 1000)
    static let hostB = UDPSocket.Address(host: "192.0.2.2", port: 2000)
    static let relay = UDPSocket.Address(host: "203.0.113.5", port: 49152)
    static let mapped = UDPSocket.Address(host: "198.51.100.1", port: 1000)
    static let server = UDPSocket.Address(host: "203.0.113.5", port: 3478)

    var a: ICEAgent
    var b: ICEAgent
    var now: Duration = .zero
    var latency: Duration = .milliseconds(10)
    /// A's direct path to B is blocked (as with `--ice-policy relay` or a strict NAT).
    var directBlocked = false
    var inFlight: [(at: Duration, bytes: [UInt8], from: UDPSocket.Address, to: UDPSocket.Address)] = []
    var relayedByA = 0
    /// The TURN server drops what arrives for the relayed address before this time (no
    /// permission for the peer yet: A installs it when it gets B's description).
    var permissionAt: Duration = .zero
    var eventsA: [(Duration, ICEAgent.Event)] = []

    init(aHasHost: Bool) {
        a = ICEAgent(
            role: .controlling, ufrag: "ufA", pwd: "passwordA-0123456789abcd", ids: SeededIdentifierSource(seed: 1))
        b = ICEAgent(
            role: .controlled, ufrag: "ufB", pwd: "passwordB-0123456789abcd", ids: SeededIdentifierSource(seed: 2))
        if aHasHost { _ = a.addHostCandidates([Self.hostA.host], port: Self.hostA.port) }
        absorb(a.addRelayCandidate(relayed: Self.relay, mapped: Self.mapped, server: Self.server), fromA: true)
        _ = b.addHostCandidates([Self.hostB.host], port: Self.hostB.port)
    }

    mutating func absorb(_ actions: [ICEAgent.Action], fromA: Bool) {
        for action in actions {
            switch action {
            case .send(let bytes, let to):
                if fromA && directBlocked { continue }
                if !fromA && directBlocked && to == Self.hostA { continue }
                inFlight.append((now + latency, bytes, fromA ? Self.hostA : Self.hostB, to))
            case .sendRelayed(let bytes, let to):
                #expect(fromA)
                relayedByA += 1
                inFlight.append((now + latency * 2, bytes, Self.relay, to))  // via the server
            case .event(let e):
                if fromA { eventsA.append((now, e)) }
            }
        }
    }

    mutating func exchange() {
        absorb(
            b.setRemote(ufrag: "ufA", pwd: "passwordA-0123456789abcd", candidates: a.localCandidates, now: now),
            fromA: false)
        absorb(
            a.setRemote(ufrag: "ufB", pwd: "passwordB-0123456789abcd", candidates: b.localCandidates, now: now),
            fromA: true)
    }

    mutating func run(until end: Duration) {
        while true {
            let next = [a.nextDeadline, b.nextDeadline, inFlight.map(\.at).min()].compactMap { $0 }.min()
            guard let next, next <= end else { break }
            now = max(now, next)
            if let i = inFlight.firstIndex(where: { $0.at <= now }) {
                let d = inFlight.remove(at: i)
                if d.to == Self.relay && now < permissionAt { continue }
                if d.to == Self.relay {
                    // The server relays it to A (Data indication / ChannelData), one more hop.
                    inFlight.append((now + latency, d.bytes, d.from, Self.server))
                } else if d.to == Self.server {
                    absorb(a.receive(d.bytes, from: d.from, localAddress: Self.relay, now: now), fromA: true)
                } else if d.to == Self.hostA {
                    absorb(a.receive(d.bytes, from: d.from, now: now), fromA: true)
                } else if d.to == Self.hostB {
                    absorb(b.receive(d.bytes, from: d.from, now: now), fromA: false)
                }
                continue
            }
            if let d = a.nextDeadline, d <= now { absorb(a.tick(now: now), fromA: true) }
            if let d = b.nextDeadline, d <= now { absorb(b.tick(now: now), fromA: false) }
        }
        now = end
    }
}

@Suite("ICE relayed candidates (RFC 8445 + RFC 8656) in virtual time")
struct ICERelayTests {
    @Test func relayedCandidateLineAndPriority() {
        let net = ICERelayNetwork(aHasHost: false)
        let relay = net.a.localCandidates[0]
        #expect(relay.kind == .relayed && relay.base == ICERelayNetwork.relay)
        #expect(relay.priority == (0 << 24) + (65535 << 8) + 255)  // type preference 0 (§5.1.2.2)
        let line = relay.sdp
        #expect(line.type == "relay" && line.address == "203.0.113.5" && line.port == 49152)
        #expect(line.relatedAddress == "198.51.100.1" && line.relatedPort == 1000)  // raddr = mapped
        #expect(net.eventsA.count == 1)
    }

    /// Relay only: every check of A goes through the server, B's answers and checks reach A
    /// through it, the selected pair is relay → host.
    @Test func relayOnlySelectsTheRelayedPair() throws {
        var net = ICERelayNetwork(aHasHost: false)
        net.directBlocked = true
        net.exchange()
        net.run(until: .seconds(2))
        #expect(net.a.state == .completed && net.b.state == .completed)
        let pair = try #require(net.a.selectedPair)
        #expect(pair.local.kind == .relayed && pair.remote.address == ICERelayNetwork.hostB)
        #expect(net.b.selectedPair?.remote.address == ICERelayNetwork.relay)
        #expect(net.relayedByA > 0)
        // Consent keeps going through the relay (RFC 7675).
        let before = net.relayedByA
        net.run(until: .seconds(40))
        #expect(net.a.state == .completed && net.relayedByA > before)
    }

    /// Host and relay: the direct pair wins (type preference 126 vs 0) when it works…
    @Test func hostPairBeatsTheRelayedPair() throws {
        var net = ICERelayNetwork(aHasHost: true)
        net.exchange()
        net.run(until: .seconds(2))
        #expect(try #require(net.a.selectedPair).local.kind == .host)
    }

    /// … and the relayed pair carries the call when the direct path is blocked.
    @Test func relayedPairWhenTheDirectPathIsBlocked() throws {
        var net = ICERelayNetwork(aHasHost: true)
        net.directBlocked = true
        net.exchange()
        net.run(until: .seconds(10))
        #expect(try #require(net.a.selectedPair).local.kind == .relayed)
        #expect(net.b.state == .completed)
    }

    /// B gets A's offer first and checks A's relayed candidate at once; the TURN server drops
    /// those checks until A has B's answer (and the permission). A's own check then reaches
    /// B, whose in-progress check is cancelled and re-sent as a triggered check (RFC 8445
    /// §7.3.1.4): B has its valid pair one round trip later instead of at its 250 ms
    /// retransmission.
    @Test func checksDroppedBeforeThePermissionRecoverWithATriggeredCheck() throws {
        var net = ICERelayNetwork(aHasHost: false)
        net.directBlocked = true
        net.latency = .milliseconds(2)
        net.permissionAt = .milliseconds(50)
        net.absorb(
            net.b.setRemote(
                ufrag: "ufA", pwd: "passwordA-0123456789abcd", candidates: net.a.localCandidates, now: .zero),
            fromA: false)
        net.run(until: .milliseconds(50))
        #expect(net.b.state == .checking)
        net.absorb(
            net.a.setRemote(
                ufrag: "ufB", pwd: "passwordB-0123456789abcd", candidates: net.b.localCandidates, now: net.now),
            fromA: true)
        net.run(until: .milliseconds(120))
        #expect(net.b.pairs.first?.state == .succeeded, "\(net.b.pairs)")
        #expect(net.a.state == .completed && net.b.state == .completed)
    }

    /// A relayed candidate that arrives after the remote description is paired at once.
    @Test func relayAddedAfterTheDescriptionIsPaired() {
        var a = ICEAgent(role: .controlling, ufrag: "u", pwd: "p", ids: SeededIdentifierSource(seed: 4))
        let remote = ICEAgentCandidate(
            kind: .host, address: ICERelayNetwork.hostB, priority: 2_130_706_431, foundation: "h")
        _ = a.setRemote(ufrag: "r", pwd: "rp", candidates: [remote], now: .zero)
        #expect(a.pairs.isEmpty)
        _ = a.addRelayCandidate(relayed: ICERelayNetwork.relay, mapped: nil, server: ICERelayNetwork.server)
        #expect(a.pairs.count == 1 && a.pairs[0].local.kind == .relayed)
        let out = a.tick(now: .milliseconds(20))
        #expect(out.contains { if case .sendRelayed(_, ICERelayNetwork.hostB) = $0 { true } else { false } })
    }
}

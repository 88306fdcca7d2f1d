import Media
import SIPCore

/// The ICE agent (RFC 8445, consent RFC 7675) as a remote peer can drive it: connectivity
/// checks and answers to our checks, authenticated with the passwords both sides exchanged in
/// SDP (``STUNPeer`` forges them), raw datagrams, and time. Seeds: real conversations with a
/// second agent, recorded in the target's own step format.
///
/// Each step is a control byte then a framed datagram: `c & 3` = 0 raw datagram, 1 a check
/// signed with our password, 2 an answer to one of our checks signed with the peer's password,
/// 3 time passes (`c >> 2` × 10 ms); bit 2 sends from an address the agent never heard of
/// (a peer-reflexive candidate, §7.3.1.3).
///
/// Invariants: every datagram the agent sends is STUN — requests carry integrity under the
/// peer's password, answers under ours; a selected pair is one of the agent's pairs, over one
/// of its local candidates.
enum ICETarget {
    static let local = (ufrag: "LOCL", pwd: "localpassword0123456789A")
    static let remote = (ufrag: "REMT", pwd: "remotepassword0123456789")
    static let localAddress = UDPSocket.Address(host: "127.0.0.1", port: 4000)
    static let remoteAddress = UDPSocket.Address(host: "127.0.0.1", port: 5000)
    static let strangerAddress = UDPSocket.Address(host: "127.0.0.1", port: 5999)

    static let target = FuzzTarget(
        name: "ice",
        summary:
            "ICE agent driven by a hostile authenticated peer: checks, answers, consent, time (RFC 8445, RFC 7675)",
        maxLength: 8192, dictionary: "stun",
        seeds: seeds, run: run)

    /// The agent under test with its peer-side bookkeeping.
    struct Conversation {
        var agent: ICEAgent
        var peer = STUNPeer()
        var now: Duration = .zero

        init(role: ICEAgent.Role) {
            agent = ICEAgent(
                role: role, ufrag: ICETarget.local.ufrag, pwd: ICETarget.local.pwd,
                ids: SeededIdentifierSource(seed: 11))
            _ = agent.addHostCandidates([ICETarget.localAddress.host], port: ICETarget.localAddress.port)
            let candidate = ICEAgentCandidate(
                kind: .host, address: ICETarget.remoteAddress, base: ICETarget.remoteAddress, priority: 2_130_706_431,
                foundation: "1", component: 1)
            absorb(
                agent.setRemote(
                    ufrag: ICETarget.remote.ufrag, pwd: ICETarget.remote.pwd, candidates: [candidate], now: now))
        }

        /// One step; returns what the agent sent.
        mutating func apply(control: UInt8, datagram: [UInt8]) -> [[UInt8]] {
            let source = control & 4 != 0 ? ICETarget.strangerAddress : ICETarget.remoteAddress
            let actions: [ICEAgent.Action]
            switch control & 3 {
            case 0: actions = agent.receive(datagram, from: source, now: now)
            case 1:
                let check = peer.forge(datagram, pick: control >> 3, key: Array(ICETarget.local.pwd.utf8))
                actions = agent.receive(check, from: source, now: now)
            case 2:
                let answer = peer.forge(datagram, pick: control >> 3, key: Array(ICETarget.remote.pwd.utf8))
                actions = agent.receive(answer, from: source, now: now)
            default:
                now += .milliseconds(10 * Int(control >> 2))
                actions = agent.tick(now: now)
            }
            return absorb(actions)
        }

        @discardableResult
        mutating func absorb(_ actions: [ICEAgent.Action]) -> [[UInt8]] {
            var sent: [[UInt8]] = []
            for action in actions {
                switch action {
                case .send(let bytes, _), .sendRelayed(let bytes, _):
                    ICETarget.checkSent(bytes)
                    peer.observe(bytes)
                    sent.append(bytes)
                case .event(.selectedPair(let pair)):
                    invariant(
                        agent.localCandidates.contains { $0.address == pair.local.address },
                        "selected pair over an unknown local candidate")
                case .event:
                    break
                }
            }
            return sent
        }
    }

    static func run(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        var conversation = Conversation(role: input.bool() ? .controlling : .controlled)
        var steps = 0
        while !input.isAtEnd && steps < 256 {
            let control = input.byte()
            _ = conversation.apply(control: control, datagram: input.framed())
            steps += 1
        }
    }

    static func checkSent(_ bytes: [UInt8]) {
        guard let m = try? STUNMessage(parsing: bytes) else {
            fatalError("invariant broken: the agent sent a datagram that is not STUN")
        }
        switch m.messageClass {
        case .request:
            invariant(
                m.verifyIntegrity(key: Array(remote.pwd.utf8)), "our check is not signed with the peer's password")
        case .successResponse, .errorResponse:
            // §7.3: answers to checks with a bad USERNAME/integrity go unsigned (400/401).
            if m.hasIntegrity {
                invariant(m.verifyIntegrity(key: Array(local.pwd.utf8)), "our answer is not signed with our password")
            }
        case .indication:
            break
        }
    }

    /// Conversations with a second, honest agent, recorded as steps (role byte first).
    static func seeds() -> [[UInt8]] {
        var seeds: [[UInt8]] = []
        for (role, peerRole) in [(ICEAgent.Role.controlled, ICEAgent.Role.controlling), (.controlling, .controlled)] {
            var steps: [UInt8] = [role == .controlling ? 1 : 0]
            var conversation = Conversation(role: role)
            var peer = ICEAgent(
                role: peerRole, ufrag: remote.ufrag, pwd: remote.pwd, ids: SeededIdentifierSource(seed: 12))
            _ = peer.addHostCandidates([remoteAddress.host], port: remoteAddress.port)
            let ours = ICEAgentCandidate(
                kind: .host, address: localAddress, base: localAddress, priority: 2_130_706_431, foundation: "1",
                component: 1)
            var toAgent = peer.setRemote(ufrag: local.ufrag, pwd: local.pwd, candidates: [ours], now: .zero)
            for _ in 0..<40 {
                var fromAgent: [[UInt8]] = []
                for case .send(let bytes, _) in toAgent {
                    let kind: UInt8 = (try? STUNMessage(parsing: bytes))?.messageClass == .request ? 1 : 2
                    steps += [0] + FuzzInput.framed([bytes])  // raw, exactly as sent
                    fromAgent += conversation.apply(control: 0, datagram: bytes)
                    steps += [kind] + FuzzInput.framed([bytes])  // the same, as a template to forge from
                    fromAgent += conversation.apply(control: kind, datagram: bytes)
                }
                steps += [3 | 2 << 2] + FuzzInput.framed([[]])
                fromAgent += conversation.apply(control: 3 | 2 << 2, datagram: [])
                toAgent = fromAgent.flatMap { peer.receive($0, from: localAddress, now: conversation.now) }
                toAgent += peer.tick(now: conversation.now)
            }
            seeds.append(steps)
        }
        return seeds + STUNVectors.messages().map { [0, 1] + FuzzInput.framed([$0]) }
    }
}

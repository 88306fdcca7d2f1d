import SIPCore

/// A full ICE agent (RFC 8445) for one component (RTP with rtcp-mux) as a pure state
/// machine: every input returns ``Action``s, time is the caller's `now` (a `Duration` since
/// any origin) and ``nextDeadline`` tells when to call ``tick(now:)``.
///
/// Covers host and server-reflexive gathering, pairing and ordering (§6.1.2), pacing by Ta
/// with triggered checks first (§6.1.4.2), answering checks before the remote description is
/// known and learning peer-reflexive candidates (§7.3.1.3, WEBRTC-NOTES), the tie-breaker and
/// role-conflict repair (§7.3.1.1, §7.2.5.1), regular nomination (§8.1.1), ICE-lite peers
/// (§6.1.1: we control), consent freshness (RFC 7675) and ICE restart (§9).
///
/// One socket serves every local host candidate, so a valid pair is the checked pair itself
/// (a mapped address that differs from the local candidate is recorded as a peer-reflexive
/// local candidate, RFC 8445 §7.2.5.3.1, but media leaves from the same socket).
public struct ICEAgent: Sendable {
    public struct Configuration: Sendable, Hashable {
        /// RFC 8445 §14.2: pacing of new checks (one per Ta).
        public var ta: Duration = .milliseconds(20)
        /// Retransmissions of a connectivity check (RFC 8445 §14.3 lets RTO follow Ta).
        public var checkTiming = STUNClientTransaction.Timing(rto: .milliseconds(250), rc: 7, rm: 8)
        /// Controlling agent: after the first valid pair, nominate the best valid pair once no
        /// better pair is left to check, or after this long at most (§8.1.1).
        public var nominationTimeout: Duration = .milliseconds(500)
        /// RFC 7675 §5.1: a consent check every 5 s (randomised 0.8–1.2 ×) …
        public var consentInterval: Duration = .seconds(5)
        /// … and consent is lost 30 s after the last response.
        public var consentTimeout: Duration = .seconds(30)
        /// Act as an ICE-lite agent (RFC 8445 §2.5): answer checks, never send any, take the
        /// pair the controlling peer nominates. For tests and server-like endpoints.
        public var lite = false
        /// SOFTWARE attribute on our checks (nil: none).
        public var software: String? = nil
        /// Server-reflexive gathering (§5.1.1.2) gives up after this long: without trickle ICE
        /// the SDP waits for gathering, so a dead or slow STUN server must not hold the call up.
        /// Pending Binding requests are abandoned and ``Event/gatheringComplete`` is reported.
        public var gatheringTimeout: Duration = .milliseconds(500)
        /// Retransmissions of a gathering Binding request (RFC 8489 §6.2.1 with a shorter RTO,
        /// so that a lost request is sent again well within ``gatheringTimeout``).
        public var gatheringTiming = STUNClientTransaction.Timing(rto: .milliseconds(100), rc: 7, rm: 16)
        public init() {}
    }

    public enum Role: String, Sendable, Hashable {
        case controlling
        case controlled
    }

    /// RFC 8445 §6.1.3 / W3C `RTCIceConnectionState`-like states, one line each.
    public enum State: String, Sendable, Hashable {
        /// No remote description yet (checks from the peer are still answered).
        case new
        /// Checks are running.
        case checking
        /// A valid pair exists; nomination pending (§8.1.1).
        case connected
        /// A pair is nominated and selected (§8.1.2).
        case completed
        /// Every pair failed, or consent was lost (RFC 7675 §5.1).
        case failed
    }

    public enum Event: Sendable, Hashable {
        case stateChanged(State)
        /// The nominated pair media must use from now on.
        case selectedPair(ICECandidatePair)
        /// Role-conflict repair switched our role (§7.2.5.1, §7.3.1.1).
        case roleChanged(Role)
        case localCandidate(ICEAgentCandidate)
        case gatheringComplete
        /// A peer-reflexive remote candidate was learnt from a check (§7.3.1.3).
        case peerReflexiveRemote(ICEAgentCandidate)
        /// RFC 7675: no consent response for ``Configuration/consentTimeout``: stop sending.
        case consentLost
    }

    public enum Action: Sendable, Hashable {
        case send([UInt8], to: UDPSocket.Address)
        /// Send through the TURN allocation of our relayed candidate (RFC 8656 Send
        /// indication or ChannelData) to this peer address.
        case sendRelayed([UInt8], to: UDPSocket.Address)
        case event(Event)
    }

    /// What a check in flight is for.
    enum Purpose: Sendable {
        case connectivity(pairID: Int, useCandidate: Bool, role: Role)
        case consent(pairID: Int)
        case gathering(server: UDPSocket.Address, base: UDPSocket.Address)
    }

    struct InFlight: Sendable {
        var purpose: Purpose
        var transaction: STUNClientTransaction
        var deadline: Duration
        var destination: UDPSocket.Address
        /// Sent from our relayed candidate (through the TURN server).
        var relayed = false
        /// RFC 8445 §7.3.1.4: superseded by a triggered check; no retransmissions, a late
        /// response still counts, no response is not a failure.
        var cancelled = false
        /// The remote password a check was protected with (its response must match it).
        var integrityKey: [UInt8]?
    }

    public let configuration: Configuration
    public internal(set) var role: Role
    public let tieBreaker: UInt64
    public internal(set) var localCredentials: (ufrag: String, pwd: String)
    public internal(set) var remoteCredentials: (ufrag: String, pwd: String)?
    public internal(set) var remoteIsLite = false
    public internal(set) var localCandidates: [ICEAgentCandidate] = []
    public internal(set) var remoteCandidates: [ICEAgentCandidate] = []
    /// The check list, highest priority first (§6.1.2.5).
    public internal(set) var pairs: [ICECandidatePair] = []
    public internal(set) var state: State = .new
    public internal(set) var selectedPair: ICECandidatePair?
    let ids: any IdentifierSource
    var nextPairID = 0
    var triggered: [Int] = []
    var inFlight: [[UInt8]: InFlight] = [:]
    var nextCheckAt: Duration = .zero
    var firstValidAt: Duration?
    var nominating: Int?
    var lastConsent: Duration?
    var nextConsentAt: Duration?
    var pendingGathering = 0
    /// When server-reflexive gathering gives up (``Configuration/gatheringTimeout``).
    var gatheringDeadline: Duration?
    /// During an ICE restart (§9): the previous generation's credentials, so that consent on
    /// the still-selected pair keeps working (our checks use the old remote password; the
    /// peer's checks with our old ufrag are answered) until a new pair is nominated.
    var previousGeneration: (local: (ufrag: String, pwd: String), remote: (ufrag: String, pwd: String))?
    /// A pair was nominated since the last restart.
    var selectedThisGeneration = false

    public init(
        configuration: Configuration = Configuration(), role: Role, ufrag: String, pwd: String,
        ids: some IdentifierSource
    ) {
        self.configuration = configuration
        self.role = role
        self.localCredentials = (ufrag, pwd)
        self.ids = ids
        self.tieBreaker = ids.nextUInt64()
    }

    /// Fresh credentials (RFC 8445 §5.3: ufrag ≥ 24 bits, pwd ≥ 128 bits of randomness).
    public static func makeCredentials() -> (ufrag: String, pwd: String) {
        (KeyMaterial.token(length: 8), KeyMaterial.token(length: 24))
    }

    // MARK: Gathering (§5.1.1)

    /// Adds a host candidate per address, all served by the socket bound at `port`; the first
    /// address gets the highest local preference (§5.1.2.2).
    public mutating func addHostCandidates(_ hosts: [String], port: UInt16) -> [Action] {
        var actions: [Action] = []
        for (i, host) in hosts.enumerated() {
            let address = UDPSocket.Address(host: host, port: port)
            guard !localCandidates.contains(where: { $0.address == address }) else { continue }
            let c = ICEAgentCandidate(
                kind: .host, address: address,
                priority: ICEAgentCandidate.priority(kind: .host, localPreference: UInt32(65535 - min(i, 1000) * 10)),
                foundation: ICEAgentCandidate.foundation(kind: .host, baseHost: host))
            localCandidates.append(c)
            actions.append(.event(.localCandidate(c)))
        }
        return actions
    }

    /// Server-reflexive gathering (§5.1.1.2): a Binding request to `server` from the host
    /// candidate of the same family. The candidate arrives as ``Event/localCandidate(_:)``,
    /// then ``Event/gatheringComplete`` (also on timeout).
    public mutating func gatherServerReflexive(server: UDPSocket.Address, now: Duration) -> [Action] {
        guard let base = localCandidates.first(where: { $0.kind == .host && $0.isIPv6 == server.host.contains(":") })
        else { return [.event(.gatheringComplete)] }
        let id = transactionID()
        let request = STUNMessage(.request, transactionID: id).encoded(fingerprint: true)
        pendingGathering += 1
        gatheringDeadline = max(gatheringDeadline ?? .zero, now + configuration.gatheringTimeout)
        return start(
            STUNClientTransaction(request: request, transactionID: id, timing: configuration.gatheringTiming),
            purpose: .gathering(server: server, base: base.address), to: server, now: now)
    }

    /// A relayed candidate (RFC 8445 §5.1.1.2, RFC 8656): the TURN allocation's relayed
    /// address, type preference 0, the server-reflexive address as its related address in
    /// the SDP (RFC 8839 §5.1). Its base is itself; checks from it go out as
    /// ``Action/sendRelayed(_:to:)``, and datagrams that arrive through the relay are passed
    /// to ``receive(_:from:localAddress:now:)`` with `localAddress` = `relayed`.
    public mutating func addRelayCandidate(
        relayed: UDPSocket.Address, mapped: UDPSocket.Address?, server: UDPSocket.Address
    ) -> [Action] {
        guard !localCandidates.contains(where: { $0.address == relayed }) else { return [] }
        var c = ICEAgentCandidate(
            kind: .relayed, address: relayed,
            priority: ICEAgentCandidate.priority(kind: .relayed, localPreference: 65535),
            foundation: ICEAgentCandidate.foundation(
                kind: .relayed, baseHost: mapped?.host ?? relayed.host, server: server.host))
        c.relatedAddress = mapped
        localCandidates.append(c)
        if remoteCredentials != nil { formPairs() }
        return [.event(.localCandidate(c))]
    }

    // MARK: Remote description (§6.1.2)

    /// Sets the peer's credentials and candidates (from its SDP) and starts checking.
    /// `lite`: the peer is ICE-lite (`a=ice-lite`), so we are controlling (§6.1.1).
    public mutating func setRemote(
        ufrag: String, pwd: String, candidates: [ICEAgentCandidate], lite: Bool = false, now: Duration
    ) -> [Action] {
        remoteCredentials = (ufrag, pwd)
        remoteIsLite = lite
        var actions: [Action] = []
        if lite && role != .controlling {
            role = .controlling
            actions.append(.event(.roleChanged(role)))
        }
        for c in candidates where c.component == 1 {
            if let i = remoteCandidates.firstIndex(where: { $0.address == c.address }) {
                remoteCandidates[i] = c  // signalled beats peer-reflexive (§7.3.1.3)
            } else {
                remoteCandidates.append(c)
            }
        }
        formPairs()
        if state == .new { actions += setState(.checking) }
        return actions + tick(now: now)
    }

    /// §6.1.2.2 pairing (same family, loopback only with loopback), §6.1.2.4 pruning (one
    /// pair per local base and remote address), §6.1.2.6 initial states.
    mutating func formPairs() {
        for local in localCandidates where local.kind == .host || local.kind == .relayed {
            for remote in remoteCandidates
            where remote.isIPv6 == local.isIPv6 && remote.isLoopback == local.isLoopback
                && !pairs.contains(where: { $0.local.address == local.address && $0.remote.address == remote.address })
            {
                pairs.append(
                    ICECandidatePair(id: nextPairID, local: local, remote: remote, controlling: role == .controlling))
                nextPairID += 1
            }
        }
        sortPairs()
        var seen = Set<String>()
        for i in pairs.indices where pairs[i].state == .frozen {
            if !seen.contains(pairs[i].foundation)
                && !pairs.contains(where: { $0.foundation == pairs[i].foundation && $0.state != .frozen })
            {
                pairs[i].state = .waiting
            }
            seen.insert(pairs[i].foundation)
        }
        if pairs.count > 100 { pairs.removeLast(pairs.count - 100) }  // §6.1.2.5 limit
    }

    mutating func sortPairs() { pairs.sort { $0.priority > $1.priority } }

    // MARK: ICE restart (§9)

    /// New local credentials; the remote side's come with its next description. The selected
    /// pair stays in use (media and consent, with the previous generation's credentials) until
    /// a new one is nominated; candidates are kept (§9.3.1.1 lets an agent reuse them).
    public mutating func restart(ufrag: String, pwd: String, role newRole: Role? = nil) -> [Action] {
        if previousGeneration == nil, selectedPair != nil, let remote = remoteCredentials {
            previousGeneration = (localCredentials, remote)
        }
        localCredentials = (ufrag, pwd)
        remoteCredentials = nil
        remoteCandidates = []
        pairs = []
        triggered = []
        inFlight = inFlight.filter { if case .gathering = $0.value.purpose { true } else { false } }
        firstValidAt = nil
        nominating = nil
        selectedThisGeneration = false
        var actions: [Action] = []
        if let newRole, newRole != role {
            role = newRole
            actions.append(.event(.roleChanged(newRole)))
        }
        return actions + setState(.new)
    }

    // MARK: Helpers

    func transactionID() -> [UInt8] {
        let a = ids.nextUInt64()
        let b = ids.nextUInt64()
        return Array((a.bigEndianBytes + b.bigEndianBytes).prefix(12))
    }

    mutating func start(
        _ transaction: STUNClientTransaction, purpose: Purpose, to destination: UDPSocket.Address, now: Duration,
        key: [UInt8]? = nil, relayed: Bool = false
    ) -> [Action] {
        var t = transaction
        var actions: [Action] = []
        var deadline = now
        for a in t.start() {
            switch a {
            case .send(let bytes):
                actions.append(relayed ? .sendRelayed(bytes, to: destination) : .send(bytes, to: destination))
            case .startTimer(let d): deadline = now + d
            default: break
            }
        }
        inFlight[t.transactionID] = InFlight(
            purpose: purpose, transaction: t, deadline: deadline, destination: destination, relayed: relayed,
            integrityKey: key)
        return actions
    }

    mutating func setState(_ new: State) -> [Action] {
        guard new != state else { return [] }
        state = new
        return [.event(.stateChanged(new))]
    }

    func pairIndex(_ id: Int) -> Int? { pairs.firstIndex { $0.id == id } }

    /// When ``tick(now:)`` should run next (nil: nothing scheduled).
    public var nextDeadline: Duration? {
        var d = inFlight.values.map(\.deadline).min()
        func consider(_ t: Duration?) {
            guard let t else { return }
            d = min(d ?? t, t)
        }
        if remoteCredentials != nil && !configuration.lite
            && (!triggered.isEmpty || pairs.contains { $0.state == .waiting || $0.state == .frozen })
            && state != .completed && state != .failed
        {
            consider(nextCheckAt)
        }
        if role == .controlling, nominating == nil, !selectedThisGeneration, let f = firstValidAt {
            consider(f + configuration.nominationTimeout)
        }
        consider(nextConsentAt)
        consider(gatheringDeadline)
        if let l = lastConsent, selectedPair != nil { consider(l + configuration.consentTimeout) }
        return d
    }
}

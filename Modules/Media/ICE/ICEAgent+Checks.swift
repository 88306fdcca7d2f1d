/// Outgoing checks: pacing, retransmission timers, responses, nomination and consent.
extension ICEAgent {
    /// Runs everything due at `now`: retransmissions and timeouts, the next paced check
    /// (triggered first, §6.1.4.2), nomination (§8.1.1) and consent (RFC 7675).
    public mutating func tick(now: Duration) -> [Action] {
        var actions: [Action] = []
        // Retransmissions / timeouts.
        for (id, var flight) in inFlight where flight.deadline <= now {
            if flight.cancelled {
                inFlight[id] = nil
                continue
            }
            for a in flight.transaction.timerFired() {
                switch a {
                case .send(let bytes):
                    actions.append(
                        flight.relayed
                            ? .sendRelayed(bytes, to: flight.destination) : .send(bytes, to: flight.destination))
                case .startTimer(let d): flight.deadline = now + d
                case .timedOut:
                    inFlight[id] = nil
                    actions += timedOut(flight.purpose)
                default: break
                }
            }
            if inFlight[id] != nil { inFlight[id] = flight }
        }
        // Gathering gives up (no trickle: the SDP is waiting).
        if let deadline = gatheringDeadline, now >= deadline {
            gatheringDeadline = nil
            if pendingGathering > 0 {
                inFlight = inFlight.filter { if case .gathering = $0.value.purpose { false } else { true } }
                pendingGathering = 0
                actions.append(.event(.gatheringComplete))
            }
        }
        // Consent freshness (RFC 7675 §5.1), also on the old pair during a restart (§9).
        if selectedPair != nil, let last = lastConsent, now - last >= configuration.consentTimeout {
            lastConsent = nil
            nextConsentAt = nil
            actions.append(.event(.consentLost))
            actions += setState(.failed)
            return actions
        }
        if let due = nextConsentAt, now >= due, let pair = selectedPair {
            nextConsentAt = now + consentInterval()
            actions += sendCheck(pair, purpose: .consent(pairID: pair.id), now: now)
        }
        guard remoteCredentials != nil, state != .failed else { return actions }
        // Nomination by the controlling agent.
        if role == .controlling, nominating == nil, !selectedThisGeneration, let best = bestValidPair() {
            let betterPending = pairs.contains {
                $0.priority > best.priority && ($0.state == .waiting || $0.state == .inProgress || $0.state == .frozen)
            }
            if !betterPending || now >= (firstValidAt ?? now) + configuration.nominationTimeout {
                nominating = best.id
                actions += sendCheck(
                    best, purpose: .connectivity(pairID: best.id, useCandidate: true, role: role), now: now)
            }
        }
        // One paced check per Ta (an ICE-lite agent never checks, RFC 8445 §2.5).
        if !configuration.lite, now >= nextCheckAt, state != .completed, let id = nextPairToCheck(),
            let i = pairIndex(id)
        {
            pairs[i].state = .inProgress
            nextCheckAt = now + configuration.ta
            actions += sendCheck(
                pairs[i], purpose: .connectivity(pairID: id, useCandidate: false, role: role), now: now)
        }
        return actions + checkForFailure()
    }

    /// RFC 7675 §5.1: randomised 0.8–1.2 × the interval.
    func consentInterval() -> Duration {
        configuration.consentInterval * (0.8 + Double(ids.nextUInt64() % 401) / 1000)
    }

    /// Triggered queue first, then the best Waiting pair, then unfreeze the best Frozen one.
    mutating func nextPairToCheck() -> Int? {
        while !triggered.isEmpty {
            let id = triggered.removeFirst()
            if let i = pairIndex(id), pairs[i].state != .succeeded || pairs[i].nominateOnSuccess { return id }
        }
        if let p = pairs.first(where: { $0.state == .waiting }) { return p.id }
        return pairs.first(where: { $0.state == .frozen })?.id
    }

    func bestValidPair() -> ICECandidatePair? { pairs.first { $0.state == .succeeded } }

    /// RFC 8445 §7.2.2: USERNAME "remote:local", PRIORITY of a prflx candidate, the role
    /// attribute with our tie-breaker, USE-CANDIDATE when nominating, MESSAGE-INTEGRITY with
    /// the remote password, FINGERPRINT.
    mutating func sendCheck(_ pair: ICECandidatePair, purpose: Purpose, now: Duration) -> [Action] {
        var credentials = remoteCredentials.map { (local: localCredentials, remote: $0) }
        if case .consent = purpose, let previous = previousGeneration { credentials = previous }
        guard let (local, remote) = credentials else { return [] }
        let id = transactionID()
        var attributes: [STUNAttribute] = [
            .username("\(remote.ufrag):\(local.ufrag)"),
            .priority(
                ICEAgentCandidate.priority(
                    kind: .peerReflexive, localPreference: (pair.local.priority >> 8) & 0xFFFF)),
            role == .controlling ? .iceControlling(tieBreaker) : .iceControlled(tieBreaker),
        ]
        if case .connectivity(_, true, _) = purpose { attributes.append(.useCandidateFlag) }
        if let software = configuration.software { attributes.insert(.software(software), at: 0) }
        let bytes = STUNMessage(.request, transactionID: id, attributes: attributes)
            .encoded(integrity: .sha1(key: Array(remote.pwd.utf8)))
        return start(
            STUNClientTransaction(request: bytes, transactionID: id, timing: configuration.checkTiming),
            purpose: purpose, to: pair.remote.address, now: now, key: Array(remote.pwd.utf8),
            relayed: pair.local.kind == .relayed)
    }

    /// A check or gathering request got no response (§7.2.5.2: the pair fails).
    mutating func timedOut(_ purpose: Purpose) -> [Action] {
        switch purpose {
        case .connectivity(let id, let useCandidate, _):
            if useCandidate && nominating == id { nominating = nil }
            if let i = pairIndex(id), pairs[i].state == .inProgress { pairs[i].state = .failed }
            return checkForFailure()
        case .consent:
            return []  // the 30 s rule decides
        case .gathering:
            pendingGathering -= 1
            guard pendingGathering == 0 else { return [] }
            gatheringDeadline = nil
            return [.event(.gatheringComplete)]
        }
    }

    /// §6.1.2.6 / §8.2: the check list failed when every pair failed and nothing is pending.
    mutating func checkForFailure() -> [Action] {
        guard state == .checking || state == .connected, !pairs.isEmpty,
            pairs.allSatisfy({ $0.state == .failed }), triggered.isEmpty,
            !inFlight.values.contains(where: { if case .connectivity = $0.purpose { true } else { false } })
        else { return [] }
        return setState(.failed)
    }

    /// A STUN response for one of our transactions.
    mutating func handleResponse(_ message: STUNMessage, from source: UDPSocket.Address, now: Duration) -> [Action] {
        guard var flight = inFlight[message.transactionID] else { return [] }
        if message.hasFingerprint && !message.fingerprintMatches { return [] }
        switch flight.purpose {
        case .gathering(let server, let base):
            guard flight.transaction.receive(message).contains(where: { if case .deliver = $0 { true } else { false } })
            else { return [] }
            inFlight[message.transactionID] = nil
            pendingGathering -= 1
            var actions: [Action] = []
            if message.messageClass == .successResponse, let mapped = message.mappedAddress?.socketAddress,
                mapped != base, !localCandidates.contains(where: { $0.address == mapped })
            {
                let localPreference = (localCandidates.first { $0.address == base }?.priority ?? 0) >> 8 & 0xFFFF
                let c = ICEAgentCandidate(
                    kind: .serverReflexive, address: mapped, base: base,
                    priority: ICEAgentCandidate.priority(kind: .serverReflexive, localPreference: localPreference),
                    foundation: ICEAgentCandidate.foundation(
                        kind: .serverReflexive, baseHost: base.host, server: server.host))
                localCandidates.append(c)
                actions.append(.event(.localCandidate(c)))
            }
            if pendingGathering == 0 {
                gatheringDeadline = nil
                actions.append(.event(.gatheringComplete))
            }
            return actions
        case .connectivity, .consent:
            // §7.2.5.1 integrity with the remote password the check used; §7.2.5.2.1 symmetric addresses.
            guard let key = flight.integrityKey, message.verifyIntegrity(key: key) else { return [] }
            guard flight.transaction.receive(message).contains(where: { if case .deliver = $0 { true } else { false } })
            else { return [] }
            inFlight[message.transactionID] = nil
            return checkResponse(message, purpose: flight.purpose, from: source, sentTo: flight.destination, now: now)
        }
    }

    mutating func checkResponse(
        _ message: STUNMessage, purpose: Purpose, from source: UDPSocket.Address, sentTo: UDPSocket.Address,
        now: Duration
    ) -> [Action] {
        if case .consent(let id) = purpose {
            if message.messageClass == .successResponse, source == sentTo, selectedPair?.id == id { lastConsent = now }
            return []
        }
        guard case .connectivity(let id, let useCandidate, let sentRole) = purpose, let i = pairIndex(id) else {
            return []
        }
        var actions: [Action] = []
        if message.messageClass == .errorResponse {
            if message.errorCode?.code == 487 && sentRole != role {
                // Our role already changed since the check was sent: just check again.
                pairs[i].state = .waiting
                triggered.append(id)
                if useCandidate { nominating = nil }
                return tick(now: now)
            }
            if message.errorCode?.code == 487 {
                // §7.2.5.1: switch role, recompute priorities, check the pair again.
                role = role == .controlling ? .controlled : .controlling
                for k in pairs.indices { pairs[k].updatePriority(controlling: role == .controlling) }
                sortPairs()
                if let j = pairIndex(id) {
                    pairs[j].state = .waiting
                    triggered.append(id)
                }
                if useCandidate { nominating = nil }
                return [.event(.roleChanged(role))]
            }
            pairs[i].state = .failed
            if useCandidate && nominating == id { nominating = nil }
            return checkForFailure()
        }
        guard source == sentTo else {  // §7.2.5.2.1 non-symmetric
            pairs[i].state = .failed
            return checkForFailure()
        }
        if let mapped = message.mappedAddress?.socketAddress,
            !localCandidates.contains(where: { $0.address == mapped })
        {
            // §7.2.5.3.1: a peer-reflexive local candidate.
            let c = ICEAgentCandidate(
                kind: .peerReflexive, address: mapped, base: pairs[i].local.address,
                priority: ICEAgentCandidate.priority(
                    kind: .peerReflexive, localPreference: (pairs[i].local.priority >> 8) & 0xFFFF),
                foundation: ICEAgentCandidate.foundation(kind: .peerReflexive, baseHost: pairs[i].local.address.host))
            localCandidates.append(c)
            actions.append(.event(.localCandidate(c)))
        }
        pairs[i].state = .succeeded
        if firstValidAt == nil { firstValidAt = now }
        // §7.2.5.3.3: unfreeze pairs of the same foundation.
        for k in pairs.indices where pairs[k].state == .frozen && pairs[k].foundation == pairs[i].foundation {
            pairs[k].state = .waiting
        }
        if state == .checking { actions += setState(.connected) }
        if (useCandidate && role == .controlling) || (role == .controlled && pairs[i].nominateOnSuccess) {
            actions += select(i, now: now)
        } else if role == .controlling {
            actions += tick(now: now)  // nominate now if nothing better is pending
        }
        return actions
    }

    /// §8.1.2: a nominated valid pair becomes the selected pair; checking stops.
    mutating func select(_ i: Int, now: Duration) -> [Action] {
        pairs[i].nominated = true
        pairs[i].nominateOnSuccess = false
        nominating = nil
        selectedThisGeneration = true
        previousGeneration = nil  // §9: the restart is over, the old pair is dropped
        let changed = selectedPair?.id != pairs[i].id || selectedPair?.remote.address != pairs[i].remote.address
        selectedPair = pairs[i]
        lastConsent = now
        nextConsentAt = now + consentInterval()
        for k in pairs.indices where pairs[k].state == .waiting || pairs[k].state == .frozen {
            pairs[k].state = .failed
        }
        triggered = []
        var actions: [Action] = changed ? [.event(.selectedPair(pairs[i]))] : []
        actions += setState(.completed)
        return actions
    }
}

/// Incoming STUN: requests are answered (§7.3), responses go to their transaction.
extension ICEAgent {
    /// A STUN datagram arrived from `source`. `localAddress` is the local candidate it arrived
    /// on when the driver knows it (nil: the host candidate of the same family and scope).
    public mutating func receive(
        _ bytes: [UInt8], from source: UDPSocket.Address, localAddress: UDPSocket.Address? = nil, now: Duration
    ) -> [Action] {
        guard let message = try? STUNMessage(parsing: bytes), message.method == STUNMessage.binding else { return [] }
        switch message.messageClass {
        case .successResponse, .errorResponse: return handleResponse(message, from: source, now: now)
        case .indication: return []  // keepalives (§11)
        case .request: return handleRequest(message, from: source, localAddress: localAddress, now: now)
        }
    }

    func respond(
        _ request: STUNMessage, _ cls: STUNMessage.Class, _ attributes: [STUNAttribute], to: UDPSocket.Address,
        integrity: Bool = true, password: String? = nil, relayed: Bool = false
    ) -> Action {
        let m = STUNMessage(cls, transactionID: request.transactionID, attributes: attributes)
        let bytes = m.encoded(integrity: integrity ? .sha1(key: Array((password ?? localCredentials.pwd).utf8)) : .none)
        return relayed ? .sendRelayed(bytes, to: to) : .send(bytes, to: to)
    }

    /// RFC 8445 §7.3 and RFC 8489 §9.1.3 / §6.3.1.
    mutating func handleRequest(
        _ request: STUNMessage, from source: UDPSocket.Address, localAddress: UDPSocket.Address?, now: Duration
    ) -> [Action] {
        if request.hasFingerprint && !request.fingerprintMatches { return [] }  // not ours (RFC 8489 §7.3)
        // Arrived through our TURN allocation: the answer goes back the same way.
        let relayed =
            localAddress.map { hint in localCandidates.contains { $0.kind == .relayed && $0.address == hint } }
            ?? false
        func respond(
            _ request: STUNMessage, _ cls: STUNMessage.Class, _ attributes: [STUNAttribute], to: UDPSocket.Address,
            integrity: Bool = true, password: String? = nil
        ) -> Action {
            self.respond(
                request, cls, attributes, to: to, integrity: integrity, password: password, relayed: relayed)
        }
        guard request.hasIntegrity, let username = request.username else {
            return [
                respond(request, .errorResponse, [.errorCode(400, reason: "Bad Request")], to: source, integrity: false)
            ]
        }
        let parts = username.split(separator: ":", maxSplits: 1)
        if parts.count == 2, let previous = previousGeneration?.local, parts[0] == previous.ufrag,
            parts[0] != localCredentials.ufrag, request.verifyIntegrity(key: Array(previous.pwd.utf8)),
            let mapped = STUNTransportAddress(source)
        {
            // §9 / RFC 7675: a consent check on the old pair while the restart runs.
            return [
                respond(
                    request, .successResponse, [.xorMappedAddress(mapped, transactionID: request.transactionID)],
                    to: source, password: previous.pwd)
            ]
        }
        guard parts.count == 2, parts[0] == localCredentials.ufrag,
            request.verifyIntegrity(key: Array(localCredentials.pwd.utf8))
        else {
            return [
                respond(
                    request, .errorResponse, [.errorCode(401, reason: "Unauthorized")], to: source, integrity: false)
            ]
        }
        if !request.unknownRequired.isEmpty {
            return [
                respond(
                    request, .errorResponse,
                    [.errorCode(420, reason: "Unknown Attribute"), .unknownAttributes(request.unknownRequired)],
                    to: source)
            ]
        }
        var actions: [Action] = []
        // §7.3.1.1 role conflict.
        if role == .controlling, let theirs = request.iceControlling {
            if tieBreaker >= theirs {
                return [respond(request, .errorResponse, [.errorCode(487, reason: "Role Conflict")], to: source)]
            }
            actions += switchRole(to: .controlled)
        } else if role == .controlled, let theirs = request.iceControlled {
            if tieBreaker >= theirs {
                actions += switchRole(to: .controlling)
            } else {
                return [respond(request, .errorResponse, [.errorCode(487, reason: "Role Conflict")], to: source)]
            }
        }
        // §7.3.1.2: success with XOR-MAPPED-ADDRESS = the source.
        if let mapped = STUNTransportAddress(source) {
            actions.append(
                respond(
                    request, .successResponse, [.xorMappedAddress(mapped, transactionID: request.transactionID)],
                    to: source))
        }
        // §7.3.1.3: learn a peer-reflexive remote candidate.
        var remoteCandidate = remoteCandidates.first { $0.address == source }
        if remoteCandidate == nil {
            let c = ICEAgentCandidate(
                kind: .peerReflexive, address: source, priority: request.priority ?? 0,
                foundation: "prflx" + ICEAgentCandidate.foundation(kind: .peerReflexive, baseHost: source.host))
            remoteCandidates.append(c)
            remoteCandidate = c
            actions.append(.event(.peerReflexiveRemote(c)))
        }
        guard let remote = remoteCandidate, let local = localCandidate(for: source, hint: localAddress) else {
            return actions
        }
        // §7.3.1.4 triggered check; §7.3.1.5 nomination by the controlling peer.
        var index = pairs.firstIndex { $0.local.address == local.address && $0.remote.address == remote.address }
        if index == nil {
            pairs.append(
                ICECandidatePair(id: nextPairID, local: local, remote: remote, controlling: role == .controlling))
            nextPairID += 1
            sortPairs()
            index = pairs.firstIndex { $0.id == nextPairID - 1 }
            pairs[index!].state = .waiting
            triggered.append(pairs[index!].id)
        } else if let i = index {
            switch pairs[i].state {
            case .frozen, .waiting, .failed:
                pairs[i].state = .waiting
                if !triggered.contains(pairs[i].id) { triggered.append(pairs[i].id) }
            case .inProgress:
                // §7.3.1.4: cancel the check in progress (its requests may have been lost, e.g.
                // dropped by a TURN server before the permission existed) and check again now.
                // A nomination in flight is left alone.
                let id = pairs[i].id
                let running = inFlight.filter {
                    if case .connectivity(id, false, _) = $0.value.purpose { !$0.value.cancelled } else { false }
                }
                if !running.isEmpty, remoteCredentials != nil {
                    let wait = now + configuration.checkTiming.rto
                    for key in running.keys {
                        inFlight[key]?.cancelled = true
                        inFlight[key]?.deadline = wait
                    }
                    pairs[i].state = .waiting
                    if !triggered.contains(id) { triggered.append(id) }
                }
            case .succeeded:
                break
            }
        }
        let i = index!
        if request.useCandidate && role == .controlled {
            if configuration.lite {
                pairs[i].state = .succeeded  // §8.2.2: a lite agent takes the nominated pair
                actions += select(i, now: now)
            } else if pairs[i].state == .succeeded {
                actions += select(i, now: now)
            } else {
                pairs[i].nominateOnSuccess = true
            }
        }
        if state == .new && remoteCredentials == nil { return actions }  // checks wait for the description
        return actions + tick(now: now)
    }

    mutating func switchRole(to newRole: Role) -> [Action] {
        role = newRole
        for k in pairs.indices { pairs[k].updatePriority(controlling: role == .controlling) }
        sortPairs()
        return [.event(.roleChanged(newRole))]
    }

    /// The host candidate a request from `source` arrived on (one socket serves them all).
    func localCandidate(for source: UDPSocket.Address, hint: UDPSocket.Address?) -> ICEAgentCandidate? {
        if let hint, let c = localCandidates.first(where: { $0.kind == .relayed && $0.address == hint }) { return c }
        let hosts = localCandidates.filter { $0.kind == .host }
        if let hint, let c = hosts.first(where: { $0.address == hint }) { return c }
        let v6 = source.host.contains(":")
        let loop = source.host.hasPrefix("127.") || source.host == "::1"
        return hosts.first { $0.isIPv6 == v6 && $0.isLoopback == loop } ?? hosts.first { $0.isIPv6 == v6 }
    }
}

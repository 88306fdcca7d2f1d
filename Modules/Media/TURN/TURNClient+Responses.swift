import SIPCore

/// Responses: success and error responses matched to their request; 401/438 answered
/// with credentials or a fresh nonce (RFC 8489 §9.2), failures ending the allocation, refresh timing (§8).
extension TURNClient {
    mutating func handleResponse(_ message: STUNMessage, now: Duration) -> [Action] {
        guard var flight = inFlight[message.transactionID] else { return [] }
        // RFC 8489 §9.2.5: a success to an authenticated request must carry a valid integrity.
        if message.messageClass == .successResponse, flight.authenticated, let key,
            !message.verifyIntegrity(key: key)
        {
            return []
        }
        guard flight.transaction.receive(message).contains(where: { if case .deliver = $0 { true } else { false } })
        else { return [] }
        inFlight[message.transactionID] = nil
        if message.messageClass == .errorResponse {
            return errorResponse(message, flight: flight, now: now)
        }
        switch flight.request {
        case .allocate:
            guard state == .allocating else { return [] }
            guard let relayed = message.relayedAddress?.socketAddress else {
                return failed(.allocate, TURNError(.badResponse, "Allocate success without XOR-RELAYED-ADDRESS"))
            }
            let lifetime = Duration.seconds(Int(message.lifetime ?? 600))
            state = .allocated
            relayedAddress = relayed
            mappedAddress = message.mappedAddress?.socketAddress
            refreshAt = now + refreshDelay(lifetime)
            var actions: [Action] = [.event(.allocated(relayed: relayed, mapped: mappedAddress, lifetime: lifetime))]
            let waiting = permissions.filter { $0.value.status == .requested }.keys.sorted()
            if !waiting.isEmpty { actions += start(.createPermission(waiting), now: now) }
            return actions
        case .refresh(let requested):
            guard requested != 0, state == .allocated else { return [] }
            let lifetime = Duration.seconds(Int(message.lifetime ?? requested))
            refreshAt = now + refreshDelay(lifetime)
            return [.event(.refreshed(lifetime: lifetime))]
        case .createPermission(let hosts):
            guard state == .allocated else { return [] }
            var actions: [Action] = [.event(.permissionCreated(hosts))]
            for host in hosts {
                guard var p = permissions[host] else { continue }
                p.status = .installed
                p.refreshAt = now + configuration.permissionRefresh
                let queued = p.queue
                p.queue = []
                permissions[host] = p
                for (data, peer) in queued { actions += send(data, to: peer, now: now) }
            }
            return actions
        case .channelBind(let number, let peer):
            guard state == .allocated, channels[peer]?.number == number else { return [] }
            let channelRefreshAt = now + configuration.channelRefresh
            let permissionRefreshAt = now + configuration.permissionRefresh
            channels[peer]?.bound = true
            channels[peer]?.refreshAt = channelRefreshAt
            channelPeers[number] = peer
            // §12: a channel binding also installs or refreshes the peer's permission.
            if var p = permissions[peer.host], p.status == .installed {
                p.refreshAt = permissionRefreshAt
                permissions[peer.host] = p
            }
            return [.event(.channelBound(peer, channel: number))]
        }
    }

    mutating func errorResponse(_ message: STUNMessage, flight: InFlight, now: Duration) -> [Action] {
        let (status, reason) = message.errorCode ?? (500, "error response without ERROR-CODE")
        // RFC 8489 §9.2.5: the challenge (first 401) or a stale nonce: new realm/nonce, again.
        if (status == 401 && !flight.authenticated) || status == 438, let nonce = message.nonce,
            let realm = message.realm ?? self.realm, flight.staleRetries < 3, state != .closed
        {
            if realm != self.realm || key == nil {
                key = STUNMessage.longTermKey(
                    username: configuration.username, realm: realm, password: configuration.password)
            }
            self.realm = realm
            self.nonce = nonce
            return start(flight.request, now: now, staleRetries: flight.staleRetries + (status == 438 ? 1 : 0))
        }
        var error = TURNError(
            status: status, reason: reason, "\(flight.request.name) refused by \(configuration.server)")
        if status == 401 {
            error = TURNError(
                .unauthorized, status: 401,
                "\(flight.request.name) refused by \(configuration.server): 401 \(reason) (wrong username or password for realm \"\(realm ?? "")\")"
            )
        }
        return failed(flight.request, error)
    }

    /// A request failed for good (error response or timeout).
    mutating func failed(_ request: Request, _ error: TURNError) -> [Action] {
        switch request {
        case .allocate:
            guard state == .allocating else { return [] }
            state = .failed
            return [.event(.failed(error))]
        case .refresh(let lifetime):
            guard lifetime != 0, state == .allocated else { return [] }
            // §8: 437 means the allocation is gone; a refresh that times out loses it too.
            state = .failed
            permissions = [:]
            channels = [:]
            channelPeers = [:]
            return [.event(.failed(error))]
        case .createPermission(let hosts):
            if error.code == .allocationMismatch && state == .allocated {
                state = .failed
                return [.event(.failed(error))]
            }
            for host in hosts {
                permissions[host]?.status = .failed
                permissions[host]?.queue = []
                permissions[host]?.refreshAt = nil
            }
            return [.event(.permissionFailed(hosts, error))]
        case .channelBind(let number, let peer):
            // Data keeps flowing as Send indications (the channel is an optimisation); the
            // entry stays, unbound, so that it is not asked for again.
            channels[peer]?.bound = false
            channels[peer]?.refreshAt = nil
            channelPeers[number] = nil
            return []
        }
    }

    /// §8: refresh a margin before expiry, or at half the lifetime when it is short.
    func refreshDelay(_ lifetime: Duration) -> Duration {
        lifetime > configuration.refreshMargin * 2 ? lifetime - configuration.refreshMargin : lifetime / 2
    }
}

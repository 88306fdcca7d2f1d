import SIPCore

/// Requests: transaction IDs, each request built and sent with its retransmission state, Send
/// indications (RFC 8656 §11), channel binding when a peer is used often (§12).
extension TURNClient {
    func transactionID() -> [UInt8] {
        Array((ids.nextUInt64().bigEndianBytes + ids.nextUInt64().bigEndianBytes).prefix(12))
    }

    mutating func start(_ request: Request, now: Duration, staleRetries: Int = 0) -> [Action] {
        let id = transactionID()
        var attributes: [STUNAttribute] = []
        switch request {
        case .allocate:
            attributes.append(.requestedTransport())
            if let l = configuration.requestedLifetime { attributes.append(.lifetime(l)) }
        case .refresh(let lifetime):
            attributes.append(.lifetime(lifetime))
        case .createPermission(let hosts):
            attributes += hosts.compactMap { STUNTransportAddress(host: $0, port: 0) }.map {
                .xorPeerAddress($0, transactionID: id)
            }
        case .channelBind(let channel, let peer):
            attributes.append(.channelNumber(channel))
            if let p = STUNTransportAddress(peer) { attributes.append(.xorPeerAddress(p, transactionID: id)) }
        }
        if let software = configuration.software { attributes.append(.software(software)) }
        var integrity = STUNMessage.Integrity.none
        if let key, let realm, let nonce {
            attributes += [.username(configuration.username), .realm(realm), .nonce(nonce)]
            integrity = .sha1(key: key)
        }
        let bytes = STUNMessage(.request, method: request.method, transactionID: id, attributes: attributes)
            .encoded(integrity: integrity, fingerprint: true)
        var transaction = STUNClientTransaction(request: bytes, transactionID: id, timing: configuration.timing)
        var actions: [Action] = []
        var deadline = now
        for a in transaction.start() {
            switch a {
            case .send(let b): actions.append(.send(b))
            case .startTimer(let d): deadline = now + d
            default: break
            }
        }
        inFlight[id] = InFlight(
            request: request, transaction: transaction, deadline: deadline, authenticated: key != nil,
            staleRetries: staleRetries)
        return actions
    }

    func sendIndication(_ data: [UInt8], to peer: UDPSocket.Address) -> [UInt8] {
        let id = transactionID()
        guard let p = STUNTransportAddress(peer) else { return [] }
        return STUNMessage(
            .indication, method: STUNMessage.sendIndication, transactionID: id,
            attributes: [.xorPeerAddress(p, transactionID: id), .data(data)]
        ).encoded(fingerprint: false)
    }

    mutating func bindChannelIfWanted(_ peer: UDPSocket.Address, now: Duration) -> [Action] {
        guard configuration.useChannels, channels[peer] == nil, nextChannel <= TURNChannelData.channels.upperBound
        else { return [] }
        let number = nextChannel
        nextChannel += 1
        channels[peer] = Channel(number: number, peer: peer, bound: false)
        return start(.channelBind(channel: number, peer: peer), now: now)
    }
}

import Media

/// STUN messages (RFC 8489) and TURN ChannelData (RFC 8656 §12) on raw datagrams: the codec
/// every ICE check and TURN answer goes through (pjsip's CVE-2021-37706 and sofia-sip's
/// CVE-2023-22741 were here). Seeds: the RFC 5769 vectors and the recorded coturn exchange.
///
/// Invariants: every accessor survives any attribute value; a parsed message re-encoded (with
/// MESSAGE-INTEGRITY under a known key and FINGERPRINT when it had them) parses to the same
/// class, method, transaction ID and attributes, with a matching fingerprint and integrity; a
/// ChannelData message decodes, re-encodes and decodes to the same channel and data.
enum STUNTarget {
    static let shortTermKey = Array("VOkJxbRl1RmTxUk/WvJxBt".utf8)  // RFC 5769 §2.1

    static let target = FuzzTarget(
        name: "stun",
        summary: "STUN message codec, attributes, integrity and fingerprint; TURN ChannelData (RFC 8489, RFC 8656)",
        maxLength: 1500, dictionary: "stun",
        seeds: { STUNVectors.messages() }, run: run)

    static func run(_ bytes: [UInt8]) {
        _ = STUNMessage.looksLikeSTUN(bytes)
        if let message = try? STUNMessage(parsing: bytes) {
            exercise(message)
            checkRoundTrip(message)
        }
        if let (channel, data) = TURNChannelData.decode(bytes) {
            let again = TURNChannelData.decode(TURNChannelData.encode(channel: channel, data))
            invariant(again?.channel == channel && again?.data == data, "ChannelData does not survive encode → decode")
        }
    }

    static func exercise(_ m: STUNMessage) {
        _ = (m.username, m.priority, m.useCandidate, m.iceControlling, m.iceControlled, m.software)
        _ = (m.mappedAddress, m.errorCode, m.hasIntegrity, m.hasFingerprint, m.fingerprintMatches)
        _ = (m.lifetime, m.realm, m.nonce, m.relayedAddress, m.peerAddress, m.peerAddresses, m.data, m.channelNumber)
        _ = m.unknownRequired
        _ = m.verifyIntegrity(key: shortTermKey)
        _ = m.verifyIntegrity(key: STUNMessage.longTermKey(username: "u", realm: m.realm ?? "astra", password: "p"))
        for a in m.attributes {
            _ = try? a.mappedAddress(transactionID: m.transactionID)
            _ = try? a.mappedAddress(transactionID: m.transactionID, xor: false)
            _ = a.isComprehensionRequired
        }
    }

    static func checkRoundTrip(_ m: STUNMessage) {
        let integrity: STUNMessage.Integrity = m.hasIntegrity ? .sha1(key: shortTermKey) : .none
        let wire = m.encoded(integrity: integrity, fingerprint: m.hasFingerprint)
        guard let again = try? STUNMessage(parsing: wire) else {
            fatalError("invariant broken: re-encoded STUN message does not parse")
        }
        invariant(
            again.messageClass == m.messageClass && again.method == m.method && again.transactionID == m.transactionID,
            "STUN header changed by encode → parse")
        invariant(again.attributes == m.attributes, "STUN attributes changed by encode → parse")
        invariant(!m.hasFingerprint || again.fingerprintMatches, "our FINGERPRINT does not match")
        invariant(!m.hasIntegrity || again.verifyIntegrity(key: shortTermKey), "our MESSAGE-INTEGRITY does not verify")
    }
}

/// Seed material shared by the STUN, ICE and TURN targets.
enum STUNVectors {
    static func messages() -> [[UInt8]] {
        let rfc = SeedFiles.json("Tests/MediaTests/Vectors/stun_rfc5769.json")
        let coturn = SeedFiles.json("Tests/MediaTests/Vectors/turn_coturn.json")
        let messages = (SeedFiles.strings(in: rfc) + SeedFiles.strings(in: coturn)).compactMap(SeedFiles.hex)
            .filter { STUNMessage.looksLikeSTUN($0) }
        return messages + [TURNChannelData.encode(channel: 0x4000, Array("hello".utf8))]
    }

    /// The recorded coturn answers (the 401 challenge and the Allocate success).
    static func coturnAnswers() -> [[UInt8]] {
        let coturn = SeedFiles.json("Tests/MediaTests/Vectors/turn_coturn.json")
        return ["challenge", "success"].compactMap { key in
            if case .string(let hex)? = coturn[key] { return SeedFiles.hex(hex) }
            return nil
        }
    }
}

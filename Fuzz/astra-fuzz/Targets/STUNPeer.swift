import Media

/// The far end of a STUN conversation, for the ICE and TURN targets: it remembers the requests
/// the agent under test sent and turns a fuzzed message into one the agent will take seriously —
/// a response carrying the transaction ID of an outstanding request, MESSAGE-INTEGRITY under
/// the key the real peer would use and a correct FINGERPRINT. A hostile peer knows those keys
/// (the ICE password is in its own SDP; a TURN server holds the long-term credentials), so this
/// is the input a hostile peer can really send, past the checks a byte fuzzer cannot forge.
struct STUNPeer {
    /// Transaction IDs of the agent's requests, oldest first (the last 32).
    private(set) var outstanding: [[UInt8]] = []

    mutating func observe(_ datagram: [UInt8]) {
        guard let m = try? STUNMessage(parsing: datagram), m.messageClass == .request else { return }
        outstanding.append(m.transactionID)
        if outstanding.count > 32 { outstanding.removeFirst() }
    }

    /// `template` with its length field and padding repaired, re-addressed (a response takes
    /// outstanding request `pick`'s transaction ID, counting back from the newest) and re-signed with `key` (and fingerprinted)
    /// when the template had those attributes. A template that is not STUN at all goes as is.
    func forge(_ template: [UInt8], pick: UInt8, key: [UInt8]) -> [UInt8] {
        guard template.count >= 20 else { return template }
        var bytes = template + [UInt8](repeating: 0, count: (4 - template.count % 4) % 4)
        let length = bytes.count - 20
        bytes[2] = UInt8(truncatingIfNeeded: length >> 8)
        bytes[3] = UInt8(truncatingIfNeeded: length)
        bytes[0] &= 0x3F
        bytes[4...7] = [0x21, 0x12, 0xA4, 0x42]
        guard let m = try? STUNMessage(parsing: bytes) else { return template }
        var id = m.transactionID
        if m.messageClass != .request && m.messageClass != .indication, !outstanding.isEmpty {
            id = outstanding[outstanding.count - 1 - Int(pick) % outstanding.count]  // 0: the newest
        }
        let forged = STUNMessage(m.messageClass, method: m.method, transactionID: id, attributes: m.attributes)
        return forged.encoded(integrity: m.hasIntegrity ? .sha1(key: key) : .none, fingerprint: m.hasFingerprint)
    }
}

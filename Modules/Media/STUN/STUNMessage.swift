/// A STUN message (RFC 8489 §5): class, method, transaction ID and attributes — a pure codec.
///
/// Parsing keeps the received bytes so MESSAGE-INTEGRITY(-SHA256) and FINGERPRINT can be
/// checked over exactly what the peer sent (padding included, RFC 5769 §2.1 uses spaces).
/// Encoding appends the integrity attributes and FINGERPRINT last, in the §14.5–§14.7 order.
public struct STUNMessage: Sendable, Hashable {
    /// RFC 8489 §5: the two class bits.
    public enum Class: UInt16, Sendable {
        case request = 0
        case indication = 1
        case successResponse = 2
        case errorResponse = 3
    }

    /// RFC 8489 §5: 0x2112A442.
    public static let magicCookie: UInt32 = 0x2112_A442
    /// RFC 8489 §18.2: Binding.
    public static let binding: UInt16 = 0x001
    /// RFC 8489 §14.7: FINGERPRINT is the CRC-32 xor this ("STUN").
    static let fingerprintXor: UInt32 = 0x5354_554E

    public var messageClass: Class
    public var method: UInt16
    /// 96 bits (12 octets).
    public var transactionID: [UInt8]
    /// Every attribute in order except MESSAGE-INTEGRITY, MESSAGE-INTEGRITY-SHA256 and
    /// FINGERPRINT (kept as offsets into ``raw``).
    public var attributes: [STUNAttribute]
    /// The bytes this message was parsed from (empty for one built locally).
    public private(set) var raw: [UInt8] = []
    private var integrityOffset: Int?
    private var integritySHA256Offset: Int?
    private var fingerprintOffset: Int?
    /// Comprehension-required attributes that appeared after an integrity attribute are
    /// ignored (§14.5); those before it that we do not know are listed here (for a 420).
    public private(set) var unknownRequired: [UInt16] = []

    public init(
        _ messageClass: Class, method: UInt16 = binding, transactionID: [UInt8], attributes: [STUNAttribute] = []
    ) {
        precondition(transactionID.count == 12, "STUN transaction ID is 96 bits")
        self.messageClass = messageClass
        self.method = method
        self.transactionID = transactionID
        self.attributes = attributes
    }

    /// RFC 8489 §5: the first two bits are zero, the length is a multiple of 4, the cookie is
    /// present. Cheap test used by demultiplexing (RFC 7983 byte 0–3 alone is not enough).
    public static func looksLikeSTUN(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 20 && bytes[0] & 0xC0 == 0 && bytes[3] & 3 == 0
            && UInt32(bigEndianBytes: bytes[4..<8]) == magicCookie
            && Int(UInt16(bigEndianBytes: bytes[2..<4])) + 20 == bytes.count
    }

    /// Parses one datagram.
    public init(parsing bytes: [UInt8]) throws(STUNError) {
        guard Self.looksLikeSTUN(bytes) else { throw STUNError(.notSTUN, "\(bytes.count) octets") }
        let type = UInt16(bigEndianBytes: bytes[0..<2])
        // §5: class bits C1 (bit 8) and C0 (bit 4); the method is the remaining 12 bits.
        let c = (type >> 7 & 2) | (type >> 4 & 1)
        messageClass = Class(rawValue: c)!
        method = (type & 0x000F) | (type >> 1 & 0x0070) | (type >> 2 & 0x0F80)
        transactionID = Array(bytes[8..<20])
        attributes = []
        raw = bytes
        var offset = 20
        while offset < bytes.count {
            guard offset + 4 <= bytes.count else { throw STUNError(.malformedAttribute, "header at \(offset)") }
            let t = UInt16(bigEndianBytes: bytes[offset..<(offset + 2)])
            let length = Int(UInt16(bigEndianBytes: bytes[(offset + 2)..<(offset + 4)]))
            let end = offset + 4 + length
            guard end <= bytes.count else {
                throw STUNError(.malformedAttribute, "type 0x\(String(t, radix: 16)) length")
            }
            let afterIntegrity = integrityOffset != nil || integritySHA256Offset != nil
            switch t {
            case STUNAttribute.messageIntegrity:
                guard length == 20 else { throw STUNError(.malformedAttribute, "MESSAGE-INTEGRITY length") }
                if integrityOffset == nil && integritySHA256Offset == nil { integrityOffset = offset }
            case STUNAttribute.messageIntegritySHA256:
                guard length >= 16, length <= 32, length % 4 == 0 else {
                    throw STUNError(.malformedAttribute, "MESSAGE-INTEGRITY-SHA256 length")
                }
                if integritySHA256Offset == nil { integritySHA256Offset = offset }
            case STUNAttribute.fingerprint:
                // §14.7: FINGERPRINT is last.
                guard length == 4, end == bytes.count else { throw STUNError(.malformedAttribute, "FINGERPRINT") }
                fingerprintOffset = offset
            default:
                if fingerprintOffset != nil { throw STUNError(.malformedAttribute, "attribute after FINGERPRINT") }
                if !afterIntegrity {
                    attributes.append(STUNAttribute(type: t, value: Array(bytes[(offset + 4)..<end])))
                    if t < 0x8000 && !STUNAttribute.understood.contains(t) { unknownRequired.append(t) }
                }
            }
            offset = end + (4 - length % 4) % 4
        }
        guard offset == bytes.count else { throw STUNError(.malformedAttribute, "padding past the end") }
    }

    /// The 16-bit message type (§5).
    var type: UInt16 {
        let c = messageClass.rawValue
        let m = method
        return (m & 0x000F) | (c & 1) << 4 | (m & 0x0070) << 1 | (c & 2) << 7 | (m & 0x0F80) << 2
    }

    // MARK: Attributes

    public func attribute(_ type: UInt16) -> STUNAttribute? { attributes.first { $0.type == type } }
    public func has(_ type: UInt16) -> Bool { attributes.contains { $0.type == type } }

    public var username: String? { attribute(STUNAttribute.username).map { String(decoding: $0.value, as: UTF8.self) } }
    public var priority: UInt32? {
        attribute(STUNAttribute.priority).flatMap { $0.value.count == 4 ? UInt32(bigEndianBytes: $0.value) : nil }
    }
    public var useCandidate: Bool { has(STUNAttribute.useCandidate) }
    public var iceControlling: UInt64? {
        attribute(STUNAttribute.iceControlling).flatMap { $0.value.count == 8 ? UInt64(bigEndianBytes: $0.value) : nil }
    }
    public var iceControlled: UInt64? {
        attribute(STUNAttribute.iceControlled).flatMap { $0.value.count == 8 ? UInt64(bigEndianBytes: $0.value) : nil }
    }
    public var software: String? { attribute(STUNAttribute.software).map { String(decoding: $0.value, as: UTF8.self) } }

    /// XOR-MAPPED-ADDRESS, else the legacy MAPPED-ADDRESS.
    public var mappedAddress: STUNTransportAddress? {
        if let a = attribute(STUNAttribute.xorMappedAddress) {
            return try? a.mappedAddress(transactionID: transactionID)
        }
        return try? attribute(STUNAttribute.mappedAddress)?.mappedAddress(transactionID: transactionID, xor: false)
    }

    /// ERROR-CODE (§14.8): code 300–699 and the reason phrase.
    public var errorCode: (code: Int, reason: String)? {
        guard let v = attribute(STUNAttribute.errorCode)?.value, v.count >= 4 else { return nil }
        return (Int(v[2] & 7) * 100 + Int(v[3]), String(decoding: v[4...], as: UTF8.self))
    }

    public var hasIntegrity: Bool { integrityOffset != nil || integritySHA256Offset != nil }
    public var hasFingerprint: Bool { fingerprintOffset != nil }

    // MARK: Integrity and fingerprint checks (§14.5–§14.7)

    /// True when FINGERPRINT is present and matches.
    public var fingerprintMatches: Bool {
        guard let at = fingerprintOffset else { return false }
        let expected = UInt32(bigEndianBytes: raw[(at + 4)..<(at + 8)])
        return raw.withUnsafeBytes { STUNCrypto.crc32(UnsafeRawBufferPointer(rebasing: $0[0..<at])) }
            ^ Self.fingerprintXor
            == expected
    }

    /// Checks MESSAGE-INTEGRITY-SHA256 if present, else MESSAGE-INTEGRITY, under `key`
    /// (short-term: the password's bytes, §9.1.1; long-term: ``longTermKey(username:realm:password:)``).
    public func verifyIntegrity(key: [UInt8]) -> Bool {
        if let at = integritySHA256Offset { return check(at: at, sha256: true, key: key) }
        if let at = integrityOffset { return check(at: at, sha256: false, key: key) }
        return false
    }

    private func check(at offset: Int, sha256: Bool, key: [UInt8]) -> Bool {
        let length = Int(UInt16(bigEndianBytes: raw[(offset + 2)..<(offset + 4)]))
        var covered = Array(raw[0..<offset])
        // §14.5: the length field counts up to and including this attribute.
        let adjusted = UInt16(offset - 20 + 4 + length)
        covered[2] = UInt8(adjusted >> 8)
        covered[3] = UInt8(adjusted & 0xFF)
        let mac = covered.withUnsafeBytes { STUNCrypto.hmac(sha256: sha256, key: key, $0) }
        return Array(mac.prefix(length)) == Array(raw[(offset + 4)..<(offset + 4 + length)])
    }

    /// RFC 8489 §9.2.2 long-term credential key (MD5).
    public static func longTermKey(username: String, realm: String, password: String) -> [UInt8] {
        STUNCrypto.longTermKey(username: username, realm: realm, password: password)
    }

    // MARK: Encoding

    public enum Integrity: Sendable, Hashable {
        case none
        /// HMAC-SHA1 (§14.5).
        case sha1(key: [UInt8])
        /// HMAC-SHA256, 32 octets (§14.6).
        case sha256(key: [UInt8])
    }

    /// Serialises: header, attributes (zero-padded), then the integrity attribute and
    /// FINGERPRINT when asked. `padding` is the pad octet (§14: any value; RFC 5769 uses spaces).
    public func encoded(integrity: Integrity = .none, fingerprint: Bool = true, padding: UInt8 = 0) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(128)
        out += type.bigEndianBytes + [0, 0] + Self.magicCookie.bigEndianBytes + transactionID
        for a in attributes {
            out += a.type.bigEndianBytes + UInt16(a.value.count).bigEndianBytes + a.value
            out += [UInt8](repeating: padding, count: (4 - a.value.count % 4) % 4)
        }
        func setLength(_ total: Int) {
            out[2] = UInt8((total - 20) >> 8)
            out[3] = UInt8((total - 20) & 0xFF)
        }
        switch integrity {
        case .none: break
        case .sha1(let key), .sha256(let key):
            let sha256: Bool
            if case .sha256 = integrity { sha256 = true } else { sha256 = false }
            let macLength = sha256 ? 32 : 20
            setLength(out.count + 4 + macLength)
            let mac = out.withUnsafeBytes { STUNCrypto.hmac(sha256: sha256, key: key, $0) }
            let t = sha256 ? STUNAttribute.messageIntegritySHA256 : STUNAttribute.messageIntegrity
            out += t.bigEndianBytes + UInt16(macLength).bigEndianBytes + mac
        }
        if fingerprint {
            setLength(out.count + 8)
            let crc = out.withUnsafeBytes { STUNCrypto.crc32($0) } ^ Self.fingerprintXor
            out += STUNAttribute.fingerprint.bigEndianBytes + [0, 4] + crc.bigEndianBytes
        } else {
            setLength(out.count)
        }
        return out
    }
}

/// One STUN attribute (RFC 8489 §14): a 16-bit type and its value, unpadded.
///
/// Types below 0x8000 are comprehension-required (§14): a request carrying one we do not know
/// is answered with 420 and UNKNOWN-ATTRIBUTES.
public struct STUNAttribute: Sendable, Hashable {
    public var type: UInt16
    public var value: [UInt8]

    public init(type: UInt16, value: [UInt8]) {
        self.type = type
        self.value = value
    }

    // RFC 8489 §18.3 and RFC 8445 §16.1 registry values.
    public static let mappedAddress: UInt16 = 0x0001
    public static let username: UInt16 = 0x0006
    public static let messageIntegrity: UInt16 = 0x0008
    public static let errorCode: UInt16 = 0x0009
    public static let unknownAttributes: UInt16 = 0x000A
    // RFC 8656 §18 (TURN).
    public static let channelNumber: UInt16 = 0x000C
    public static let lifetime: UInt16 = 0x000D
    public static let xorPeerAddress: UInt16 = 0x0012
    public static let data: UInt16 = 0x0013
    public static let realm: UInt16 = 0x0014
    public static let nonce: UInt16 = 0x0015
    public static let xorRelayedAddress: UInt16 = 0x0016
    public static let requestedAddressFamily: UInt16 = 0x0017
    public static let evenPort: UInt16 = 0x0018
    public static let requestedTransport: UInt16 = 0x0019
    public static let dontFragment: UInt16 = 0x001A
    public static let messageIntegritySHA256: UInt16 = 0x001C
    public static let passwordAlgorithm: UInt16 = 0x001D
    public static let userhash: UInt16 = 0x001E
    public static let xorMappedAddress: UInt16 = 0x0020
    public static let reservationToken: UInt16 = 0x0022
    public static let priority: UInt16 = 0x0024
    public static let useCandidate: UInt16 = 0x0025
    public static let passwordAlgorithms: UInt16 = 0x8002
    public static let alternateDomain: UInt16 = 0x8003
    public static let software: UInt16 = 0x8022
    public static let alternateServer: UInt16 = 0x8023
    public static let fingerprint: UInt16 = 0x8028
    public static let iceControlled: UInt16 = 0x8029
    public static let iceControlling: UInt16 = 0x802A

    /// Comprehension-required attributes this codec understands.
    static let understood: Set<UInt16> = [
        mappedAddress, username, messageIntegrity, errorCode, unknownAttributes, realm, nonce,
        messageIntegritySHA256, passwordAlgorithm, userhash, xorMappedAddress, priority, useCandidate,
        channelNumber, lifetime, xorPeerAddress, data, xorRelayedAddress, requestedAddressFamily, evenPort,
        requestedTransport, dontFragment, reservationToken,
    ]

    /// RFC 8489 §14: 0x0000–0x7FFF must be understood.
    public var isComprehensionRequired: Bool { type < 0x8000 }

    // MARK: Typed constructors

    public static func username(_ name: String) -> STUNAttribute {
        STUNAttribute(type: username, value: Array(name.utf8))
    }
    public static func software(_ name: String) -> STUNAttribute {
        STUNAttribute(type: software, value: Array(name.utf8))
    }

    /// RFC 8445 §7.1.1 PRIORITY.
    public static func priority(_ p: UInt32) -> STUNAttribute { STUNAttribute(type: priority, value: p.bigEndianBytes) }
    /// RFC 8445 §7.1.2 USE-CANDIDATE (no value).
    public static var useCandidateFlag: STUNAttribute { STUNAttribute(type: useCandidate, value: []) }
    /// RFC 8445 §7.1.3 ICE-CONTROLLING with the tie-breaker.
    public static func iceControlling(_ tieBreaker: UInt64) -> STUNAttribute {
        STUNAttribute(type: iceControlling, value: tieBreaker.bigEndianBytes)
    }
    public static func iceControlled(_ tieBreaker: UInt64) -> STUNAttribute {
        STUNAttribute(type: iceControlled, value: tieBreaker.bigEndianBytes)
    }

    /// RFC 8489 §14.8 ERROR-CODE: class (hundreds) and number, then a UTF-8 reason phrase.
    public static func errorCode(_ code: Int, reason: String) -> STUNAttribute {
        STUNAttribute(type: errorCode, value: [0, 0, UInt8(code / 100), UInt8(code % 100)] + Array(reason.utf8))
    }

    /// RFC 8489 §14.9 UNKNOWN-ATTRIBUTES.
    public static func unknownAttributes(_ types: [UInt16]) -> STUNAttribute {
        STUNAttribute(type: unknownAttributes, value: types.flatMap { $0.bigEndianBytes })
    }

    /// RFC 8489 §14.2 XOR-MAPPED-ADDRESS: port xor the cookie's top half; the address xor the
    /// cookie (IPv4) or cookie ‖ transaction ID (IPv6).
    public static func xorMappedAddress(_ address: STUNTransportAddress, transactionID: [UInt8]) -> STUNAttribute {
        xorAddress(type: xorMappedAddress, address, transactionID: transactionID)
    }

    /// The XOR-MAPPED-ADDRESS encoding under another type: XOR-PEER-ADDRESS and
    /// XOR-RELAYED-ADDRESS (RFC 8656 §18.3, §18.5) are encoded the same way.
    public static func xorAddress(type: UInt16, _ address: STUNTransportAddress, transactionID: [UInt8])
        -> STUNAttribute
    {
        let port = address.port ^ UInt16(STUNMessage.magicCookie >> 16)
        let mask = STUNMessage.magicCookie.bigEndianBytes + transactionID
        let raw = address.addressBytes
        let family: UInt8 = raw.count == 4 ? 1 : 2
        let xored = raw.enumerated().map { $0.element ^ mask[$0.offset] }
        return STUNAttribute(type: type, value: [0, family] + port.bigEndianBytes + xored)
    }

    /// Decodes an XOR-MAPPED-ADDRESS (or, with `xor: false`, MAPPED-ADDRESS) value.
    public func mappedAddress(transactionID: [UInt8], xor: Bool = true) throws(STUNError) -> STUNTransportAddress {
        guard value.count >= 8, value[1] == 1 || value[1] == 2 else {
            throw STUNError(.malformedAttribute, "mapped address family")
        }
        let length = value[1] == 1 ? 4 : 16
        guard value.count == 4 + length else { throw STUNError(.malformedAttribute, "mapped address length") }
        let mask = xor ? STUNMessage.magicCookie.bigEndianBytes + transactionID : [UInt8](repeating: 0, count: 16)
        let port = (UInt16(value[2]) << 8 | UInt16(value[3])) ^ (xor ? UInt16(STUNMessage.magicCookie >> 16) : 0)
        let raw = (0..<length).map { value[4 + $0] ^ mask[$0] }
        return STUNTransportAddress(addressBytes: raw, port: port)
    }
}

extension FixedWidthInteger {
    /// Network byte order.
    var bigEndianBytes: [UInt8] {
        (0..<(Self.bitWidth / 8)).map { UInt8(truncatingIfNeeded: self >> (Self.bitWidth - 8 - 8 * $0)) }
    }

    init(bigEndianBytes bytes: some Collection<UInt8>) {
        var v: Self = 0
        for b in bytes { v = v << 8 | Self(b) }
        self = v
    }
}

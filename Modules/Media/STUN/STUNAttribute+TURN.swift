/// TURN methods and attributes (RFC 8656 §17, §18) on top of the STUN codec.
extension STUNMessage {
    /// RFC 8656 §17: Allocate (request/response only).
    public static let allocate: UInt16 = 0x003
    /// RFC 8656 §17: Refresh (request/response only).
    public static let refresh: UInt16 = 0x004
    /// RFC 8656 §17: Send (indication only).
    public static let sendIndication: UInt16 = 0x006
    /// RFC 8656 §17: Data (indication only).
    public static let dataIndication: UInt16 = 0x007
    /// RFC 8656 §17: CreatePermission (request/response only).
    public static let createPermission: UInt16 = 0x008
    /// RFC 8656 §17: ChannelBind (request/response only).
    public static let channelBind: UInt16 = 0x009

    /// RFC 8656 §18.2 LIFETIME in seconds.
    public var lifetime: UInt32? {
        attribute(STUNAttribute.lifetime).flatMap { $0.value.count == 4 ? UInt32(bigEndianBytes: $0.value) : nil }
    }
    /// RFC 8489 §14.9 REALM.
    public var realm: String? { attribute(STUNAttribute.realm).map { String(decoding: $0.value, as: UTF8.self) } }
    /// RFC 8489 §14.10 NONCE.
    public var nonce: String? { attribute(STUNAttribute.nonce).map { String(decoding: $0.value, as: UTF8.self) } }
    /// RFC 8656 §18.5 XOR-RELAYED-ADDRESS.
    public var relayedAddress: STUNTransportAddress? {
        try? attribute(STUNAttribute.xorRelayedAddress)?.mappedAddress(transactionID: transactionID)
    }
    /// RFC 8656 §18.3 XOR-PEER-ADDRESS (the first one; CreatePermission may carry several).
    public var peerAddress: STUNTransportAddress? {
        try? attribute(STUNAttribute.xorPeerAddress)?.mappedAddress(transactionID: transactionID)
    }
    /// Every XOR-PEER-ADDRESS (RFC 8656 §10: a CreatePermission request may list several).
    public var peerAddresses: [STUNTransportAddress] {
        attributes.filter { $0.type == STUNAttribute.xorPeerAddress }.compactMap {
            try? $0.mappedAddress(transactionID: transactionID)
        }
    }
    /// RFC 8656 §18.4 DATA.
    public var data: [UInt8]? { attribute(STUNAttribute.data)?.value }
    /// RFC 8656 §18.1 CHANNEL-NUMBER (the first two octets; the other two are RFFU).
    public var channelNumber: UInt16? {
        attribute(STUNAttribute.channelNumber).flatMap {
            $0.value.count == 4 ? UInt16(bigEndianBytes: $0.value.prefix(2)) : nil
        }
    }
}

extension STUNAttribute {
    /// RFC 8489 §14.9 REALM.
    public static func realm(_ value: String) -> STUNAttribute { STUNAttribute(type: realm, value: Array(value.utf8)) }
    /// RFC 8489 §14.10 NONCE.
    public static func nonce(_ value: String) -> STUNAttribute { STUNAttribute(type: nonce, value: Array(value.utf8)) }
    /// RFC 8656 §18.2 LIFETIME (seconds).
    public static func lifetime(_ seconds: UInt32) -> STUNAttribute {
        STUNAttribute(type: lifetime, value: seconds.bigEndianBytes)
    }
    /// RFC 8656 §18.7 REQUESTED-TRANSPORT: the IP protocol number then three RFFU octets (17: UDP).
    public static func requestedTransport(_ protocolNumber: UInt8 = 17) -> STUNAttribute {
        STUNAttribute(type: requestedTransport, value: [protocolNumber, 0, 0, 0])
    }
    /// RFC 8656 §18.1 CHANNEL-NUMBER: the number then two RFFU octets.
    public static func channelNumber(_ channel: UInt16) -> STUNAttribute {
        STUNAttribute(type: channelNumber, value: channel.bigEndianBytes + [0, 0])
    }
    /// RFC 8656 §18.3 XOR-PEER-ADDRESS.
    public static func xorPeerAddress(_ address: STUNTransportAddress, transactionID: [UInt8]) -> STUNAttribute {
        xorAddress(type: xorPeerAddress, address, transactionID: transactionID)
    }
    /// RFC 8656 §18.5 XOR-RELAYED-ADDRESS.
    public static func xorRelayedAddress(_ address: STUNTransportAddress, transactionID: [UInt8]) -> STUNAttribute {
        xorAddress(type: xorRelayedAddress, address, transactionID: transactionID)
    }
    /// RFC 8656 §18.4 DATA.
    public static func data(_ bytes: [UInt8]) -> STUNAttribute { STUNAttribute(type: data, value: bytes) }
}

/// RFC 8656 §12.4 ChannelData message: channel number (0x4000–0x4FFF), length, application
/// data. Over UDP the padding to a multiple of 4 is optional (§12.5); we send none and accept
/// it.
public enum TURNChannelData {
    /// RFC 8656 §12: the channel numbers a client may bind.
    public static let channels: ClosedRange<UInt16> = 0x4000...0x4FFF

    public static func encode(channel: UInt16, _ data: some Collection<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(4 + data.count)
        out += channel.bigEndianBytes + UInt16(data.count).bigEndianBytes
        out += data
        return out
    }

    /// The channel and the application data; nil when not a well-formed ChannelData message.
    public static func decode(_ bytes: [UInt8]) -> (channel: UInt16, data: [UInt8])? {
        guard bytes.count >= 4 else { return nil }
        let channel = UInt16(bigEndianBytes: bytes[0..<2])
        let length = Int(UInt16(bigEndianBytes: bytes[2..<4]))
        guard channels.contains(channel), 4 + length <= bytes.count else { return nil }
        return (channel, Array(bytes[4..<(4 + length)]))
    }
}

import SIPTransport

/// HEP version 3 (the Homer Encapsulation Protocol, "HEP3 Network Protocol Specification"): a
/// captured SIP message as one datagram for Homer, `sngrep -L` or Wireshark's HEP dissector.
///
/// A packet is the ASCII id `HEP3`, a 16-bit total length, then chunks: vendor id (0 =
/// generic), type id, chunk length (including its 6-byte header), value; every number in
/// network byte order. We send the generic chunks a collector needs to file the message as if
/// it had captured it itself: IP family (0x0001), protocol id (0x0002), source/destination
/// address (0x0003/0x0004 IPv4, 0x0005/0x0006 IPv6) and port (0x0007/0x0008), time in seconds
/// and microseconds (0x0009/0x000a), payload type (0x000b, 1 = SIP), capture agent id (0x000c),
/// the auth key when one is configured (0x000e), the Call-ID as correlation id (0x0011), and
/// the message (0x000f). Pure.
public struct HEPEncoder: Sendable {
    /// Chunk type ids of the generic vendor (0x0000).
    enum Chunk: UInt16 {
        case ipFamily = 0x0001
        case ipProtocol = 0x0002
        case ipv4Source = 0x0003
        case ipv4Destination = 0x0004
        case ipv6Source = 0x0005
        case ipv6Destination = 0x0006
        case sourcePort = 0x0007
        case destinationPort = 0x0008
        case seconds = 0x0009
        case microseconds = 0x000A
        case payloadType = 0x000B
        case captureID = 0x000C
        case authKey = 0x000E
        case payload = 0x000F
        case correlationID = 0x0011
    }

    /// The capture agent id Homer groups our messages by (`--hep-id`).
    public var captureID: UInt32
    /// The collector's password, if it wants one (`--hep-password-file`). Sent in clear inside
    /// HEP, as the protocol defines; never printed.
    public var authKey: String?

    /// `AF_INET` / `AF_INET6` as HEP carries them (the Linux values).
    static let familyIPv4: UInt8 = 2
    static let familyIPv6: UInt8 = 10
    /// HEP payload type 1: SIP.
    static let payloadSIP: UInt8 = 1

    public init(captureID: UInt32 = 2001, authKey: String? = nil) {
        self.captureID = captureID
        self.authKey = authKey
    }

    /// One HEP3 packet for a SIP message (RTP is not sent: HEP is for signalling here), or nil
    /// when it would not fit a HEP length field.
    public func packet(_ packet: CapturedPacket, correlationID: String? = nil) -> [UInt8]? {
        var body: [UInt8] = []
        let v4 = PcapWriter.isIPv4(packet)
        chunk(&body, .ipFamily, [v4 ? Self.familyIPv4 : Self.familyIPv6])
        chunk(&body, .ipProtocol, [packet.overTCP ? 6 : 17])
        if v4 {
            chunk(&body, .ipv4Source, IPAddressBytes.of(packet.source))
            chunk(&body, .ipv4Destination, IPAddressBytes.of(packet.destination))
        } else {
            chunk(&body, .ipv6Source, IPAddressBytes.v6(packet.source))
            chunk(&body, .ipv6Destination, IPAddressBytes.v6(packet.destination))
        }
        chunk(&body, .sourcePort, Self.be16(packet.source.port))
        chunk(&body, .destinationPort, Self.be16(packet.destination.port))
        chunk(&body, .seconds, Self.be32(UInt32(truncatingIfNeeded: packet.time.seconds)))
        chunk(&body, .microseconds, Self.be32(UInt32(max(0, min(999_999, packet.time.nanoseconds / 1000)))))
        chunk(&body, .payloadType, [Self.payloadSIP])
        chunk(&body, .captureID, Self.be32(captureID))
        if let authKey, !authKey.isEmpty { chunk(&body, .authKey, Array(authKey.utf8)) }
        if let correlationID, !correlationID.isEmpty { chunk(&body, .correlationID, Array(correlationID.utf8)) }
        chunk(&body, .payload, packet.bytes)
        let total = 6 + body.count
        guard total <= Int(UInt16.max) else { return nil }
        var out: [UInt8] = Array("HEP3".utf8)
        out.appendBE16(UInt16(total))
        return out + body
    }

    private func chunk(_ out: inout [UInt8], _ type: Chunk, _ value: [UInt8]) {
        out.appendBE16(0x0000)
        out.appendBE16(type.rawValue)
        out.appendBE16(UInt16(clamping: 6 + value.count))
        out += value
    }

    static func be16(_ v: UInt16) -> [UInt8] {
        var out: [UInt8] = []
        out.appendBE16(v)
        return out
    }

    static func be32(_ v: UInt32) -> [UInt8] {
        var out: [UInt8] = []
        out.appendBE32(v)
        return out
    }
}

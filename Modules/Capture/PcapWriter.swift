import SIPTransport

/// Writes captured packets as a classic libpcap file ("tcpdump format",
/// draft-ietf-opsawg-pcap): a 24-byte file header, then per packet a 16-byte record header and
/// the packet. The link type is LINKTYPE_RAW (101): each record is an IPv4 or IPv6 packet, so
/// no Ethernet addresses have to be invented.
///
/// A SIP message is framed as it would look on an unencrypted wire between the real socket
/// addresses: UDP for UDP, one TCP segment (PSH|ACK, sequence numbers counted per direction so
/// Wireshark's TCP reassembly is happy) for TCP, TLS, WS and WSS — the TLS and WebSocket
/// layers are already decoded, which is the point: Wireshark sees SIP where the real wire shows
/// only TLS. RTP and RTCP are UDP between the media sockets; an RTP packet's payload (the
/// audio) is cut off at the header (record length < original length, as a snap length
/// would) unless ``rtpPayload`` is set.
///
/// Pure: it returns bytes and keeps the TCP sequence state; ``CaptureHub`` writes them.
public struct PcapWriter: Sendable {
    /// LINKTYPE_RAW: the packet begins with an IPv4 or IPv6 header.
    public static let linkTypeRaw: UInt32 = 101
    /// The largest record; also the file header's snap length.
    public static let snapLength: UInt32 = 262_144
    /// Payload bytes per TCP segment or UDP datagram (IP length fields are 16 bits).
    static let maxSegment = 65_000

    /// Keep RTP payloads (the audio) in the file.
    public var rtpPayload: Bool
    private var nextSequence: [Flow: UInt32] = [:]
    private var ipIdentification: UInt16 = 0

    private struct Flow: Hashable {
        var source: SocketAddress
        var destination: SocketAddress
    }

    public init(rtpPayload: Bool = false) { self.rtpPayload = rtpPayload }

    /// The file header: magic 0xA1B2C3D4 (microsecond stamps) written little-endian, version
    /// 2.4, snap length, link type.
    public static func fileHeader() -> [UInt8] {
        var out: [UInt8] = []
        out.appendLE32(0xA1B2_C3D4)
        out.appendLE16(2)
        out.appendLE16(4)
        out.appendLE32(0)  // reserved (was thiszone)
        out.appendLE32(0)  // reserved (was sigfigs)
        out.appendLE32(snapLength)
        out.appendLE32(linkTypeRaw)
        return out
    }

    /// The record(s) of one packet: a SIP message larger than one segment becomes several.
    public mutating func records(_ packet: CapturedPacket) -> [UInt8] {
        var out: [UInt8] = []
        if packet.overTCP {
            var offset = 0
            repeat {
                let end = min(packet.bytes.count, offset + Self.maxSegment)
                let segment = tcpSegment(packet, Array(packet.bytes[offset..<end]))
                appendRecord(&out, packet.time, segment, captured: segment.count)
                offset = end
            } while offset < packet.bytes.count
            return out
        }
        let data = Array(packet.bytes.prefix(Self.maxSegment))
        let datagram = ipPacket(packet, protocol: 17, transport: udpHeader(packet, data) + data)
        var captured = datagram.count
        if packet.content == .rtp && !rtpPayload {
            captured = datagram.count - data.count + Self.rtpHeaderLength(data)
        }
        appendRecord(&out, packet.time, datagram, captured: captured)
        return out
    }

    /// The RTP header's length: fixed part, CSRCs and a header extension (RFC 3550 §5.1, §5.3.1),
    /// at most the packet.
    static func rtpHeaderLength(_ packet: [UInt8]) -> Int {
        guard packet.count >= 12 else { return packet.count }
        var length = 12 + 4 * Int(packet[0] & 0x0F)
        if packet[0] & 0x10 != 0, packet.count >= length + 4 {
            length += 4 + 4 * (Int(packet[length + 2]) << 8 | Int(packet[length + 3]))
        }
        return min(length, packet.count)
    }

    private func appendRecord(_ out: inout [UInt8], _ time: CapturedPacket.Time, _ packet: [UInt8], captured: Int) {
        out.appendLE32(UInt32(truncatingIfNeeded: time.seconds))
        out.appendLE32(UInt32(max(0, min(999_999, time.nanoseconds / 1000))))
        out.appendLE32(UInt32(captured))
        out.appendLE32(UInt32(packet.count))
        out += packet.prefix(captured)
    }

    // MARK: Headers

    private mutating func tcpSegment(_ packet: CapturedPacket, _ data: [UInt8]) -> [UInt8] {
        let flow = Flow(source: packet.source, destination: packet.destination)
        let reverse = Flow(source: packet.destination, destination: packet.source)
        let sequence = nextSequence[flow] ?? 1
        nextSequence[flow] = sequence &+ UInt32(data.count)
        let acknowledgement = nextSequence[reverse] ?? 1
        var tcp: [UInt8] = []
        tcp.appendBE16(packet.source.port)
        tcp.appendBE16(packet.destination.port)
        tcp.appendBE32(sequence)
        tcp.appendBE32(acknowledgement)
        tcp.append(5 << 4)  // data offset: 5 words, no options
        tcp.append(0x18)  // PSH | ACK
        tcp.appendBE16(65_535)  // window
        tcp.appendBE16(0)  // checksum, filled below
        tcp.appendBE16(0)  // urgent pointer
        let checksum = Self.transportChecksum(packet, protocol: 6, segment: tcp + data)
        tcp[16] = UInt8(checksum >> 8)
        tcp[17] = UInt8(checksum & 0xFF)
        return ipPacket(packet, protocol: 6, transport: tcp + data)
    }

    private func udpHeader(_ packet: CapturedPacket, _ data: [UInt8]) -> [UInt8] {
        var udp: [UInt8] = []
        udp.appendBE16(packet.source.port)
        udp.appendBE16(packet.destination.port)
        udp.appendBE16(UInt16(8 + data.count))
        udp.appendBE16(0)
        var checksum = Self.transportChecksum(packet, protocol: 17, segment: udp + data)
        if checksum == 0 { checksum = 0xFFFF }  // RFC 768: zero means "no checksum"
        udp[6] = UInt8(checksum >> 8)
        udp[7] = UInt8(checksum & 0xFF)
        return udp
    }

    /// IPv4 (RFC 791) when both ends are IPv4, else IPv6 (RFC 8200; an IPv4 end mapped).
    private mutating func ipPacket(_ packet: CapturedPacket, protocol number: UInt8, transport: [UInt8]) -> [UInt8] {
        var ip: [UInt8] = []
        if Self.isIPv4(packet) {
            ipIdentification &+= 1
            ip.append(0x45)
            ip.append(0)
            ip.appendBE16(UInt16(20 + transport.count))
            ip.appendBE16(ipIdentification)
            ip.appendBE16(0x4000)  // don't fragment
            ip.append(64)
            ip.append(number)
            ip.appendBE16(0)
            ip += IPAddressBytes.of(packet.source)
            ip += IPAddressBytes.of(packet.destination)
            let checksum = Self.internetChecksum(ip)
            ip[10] = UInt8(checksum >> 8)
            ip[11] = UInt8(checksum & 0xFF)
        } else {
            ip.appendBE32(0x6000_0000)
            ip.appendBE16(UInt16(transport.count))
            ip.append(number)
            ip.append(64)
            ip += IPAddressBytes.v6(packet.source)
            ip += IPAddressBytes.v6(packet.destination)
        }
        return ip + transport
    }

    static func isIPv4(_ packet: CapturedPacket) -> Bool { !packet.source.isIPv6 && !packet.destination.isIPv6 }

    /// The UDP/TCP checksum over the pseudo-header (RFC 768, RFC 9293 §3.1, RFC 8200 §8.1).
    static func transportChecksum(_ packet: CapturedPacket, protocol number: UInt8, segment: [UInt8]) -> UInt16 {
        var pseudo: [UInt8] = []
        if isIPv4(packet) {
            pseudo += IPAddressBytes.of(packet.source)
            pseudo += IPAddressBytes.of(packet.destination)
            pseudo.append(0)
            pseudo.append(number)
            pseudo.appendBE16(UInt16(segment.count))
        } else {
            pseudo += IPAddressBytes.v6(packet.source)
            pseudo += IPAddressBytes.v6(packet.destination)
            pseudo.appendBE32(UInt32(segment.count))
            pseudo += [0, 0, 0, number]
        }
        return internetChecksum(pseudo + segment)
    }

    /// RFC 1071: the ones' complement of the ones' complement sum of 16-bit words.
    static func internetChecksum(_ bytes: [UInt8]) -> UInt16 {
        var sum: UInt32 = 0
        var index = 0
        while index + 1 < bytes.count {
            sum += UInt32(bytes[index]) << 8 | UInt32(bytes[index + 1])
            index += 2
        }
        if index < bytes.count { sum += UInt32(bytes[index]) << 8 }
        while sum >> 16 != 0 { sum = (sum & 0xFFFF) + (sum >> 16) }
        return ~UInt16(sum)
    }
}

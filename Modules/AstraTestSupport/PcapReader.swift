import Foundation

/// Reads a classic libpcap file (the "tcpdump format": a 24-byte file header, then per packet a
/// 16-byte record header and the bytes) back into the UDP and TCP payloads it holds. Written
/// from the format, not from our ``PcapWriter``, so it also reads what other programs write
/// (sngrep's `-O` file, Ethernet framing).
///
/// Why a reader besides ``Tshark``: a test that waits for a capture to *hold* something while the
/// capturing program still runs polls the file many times; one tshark process per poll costs
/// half a second of CPU under load. A record cut short at the end of the file (the writer is in
/// the middle of it) ends the read: that packet is not there yet, it is not an error.
public enum PcapReader {
    /// One UDP datagram or TCP segment: the transport (17 or 6), its ports and its payload.
    public struct Packet: Sendable, Equatable {
        public var transport: UInt8
        public var sourcePort: UInt16
        public var destinationPort: UInt16
        public var payload: [UInt8]
    }

    /// The UDP/TCP packets of the file at `path`, in file order; empty when it cannot be read
    /// (not yet created, not a pcap file).
    public static func packets(atPath path: String) -> [Packet] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        return packets([UInt8](data))
    }

    /// The UDP/TCP packets of a pcap file's bytes. Link types: Ethernet (1, with 802.1Q tags),
    /// BSD loopback (0), raw IP (101, 228, 229), Linux cooked v1 (113) and v2 (276). IPv4
    /// fragments after the first and other protocols are skipped.
    public static func packets(_ bytes: [UInt8]) -> [Packet] {
        guard bytes.count >= 24 else { return [] }
        let little: Bool
        switch (bytes[0], bytes[1], bytes[2], bytes[3]) {
        case (0xD4, 0xC3, 0xB2, 0xA1), (0x4D, 0x3C, 0xB2, 0xA1): little = true  // µs, ns stamps
        case (0xA1, 0xB2, 0xC3, 0xD4), (0xA1, 0xB2, 0x3C, 0x4D): little = false
        default: return []
        }
        let u32 = { (at: Int) -> Int in
            let b = bytes[at..<at + 4].map(Int.init)
            return little ? b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24 : b[3] | b[2] << 8 | b[1] << 16 | b[0] << 24
        }
        let linkType = u32(20) & 0x0FFF_FFFF  // the top bits may carry the FCS length
        var out: [Packet] = []
        var offset = 24
        while offset + 16 <= bytes.count {
            let captured = u32(offset + 8)
            let start = offset + 16
            guard captured <= bytes.count - start else { break }  // still being written
            if let packet = packet(Array(bytes[start..<start + captured]), linkType: linkType) { out.append(packet) }
            offset = start + captured
        }
        return out
    }

    /// The SIP flow the file holds, one entry per packet whose payload begins with a SIP start
    /// line (RFC 3261 §7.1, §7.2): the method of a request, the status code of a response
    /// ("REGISTER", "401", "INVITE", …) — the `sip.Method` / `sip.Status-Code` tshark shows.
    public static func sipFlow(atPath path: String) -> [String] {
        packets(atPath: path).compactMap { sipStart($0.payload) }
    }

    /// The method or status code of the SIP start line `payload` begins with, or nil.
    public static func sipStart(_ payload: [UInt8]) -> String? {
        guard let end = payload.firstIndex(of: 0x0D), end + 1 < payload.count, payload[end + 1] == 0x0A,
            let line = String(bytes: payload[..<end], encoding: .utf8)
        else { return nil }
        let parts = line.split(separator: " ", omittingEmptySubsequences: false)
        if parts.count >= 2, parts[0] == "SIP/2.0", parts[1].count == 3, parts[1].allSatisfy(\.isNumber) {
            return String(parts[1])
        }
        if parts.count == 3, parts[2] == "SIP/2.0", !parts[0].isEmpty,
            parts[0].allSatisfy({ $0.isASCII && ($0.isUppercase || $0 == "-") })
        {
            return String(parts[0])
        }
        return nil
    }

    /// The transport packet inside one record, below the link layer and IP.
    private static func packet(_ frame: [UInt8], linkType: Int) -> Packet? {
        var at: Int
        switch linkType {
        case 1:
            at = 14
            while at >= 4, at + 2 <= frame.count, frame[at - 2] == 0x81, frame[at - 1] == 0x00 { at += 4 }  // 802.1Q
        case 0: at = 4
        case 101, 228, 229: at = 0
        case 113: at = 16
        case 276: at = 20
        default: return nil
        }
        guard at < frame.count else { return nil }
        let protocolNumber: UInt8
        switch frame[at] >> 4 {
        case 4:
            guard at + 20 <= frame.count else { return nil }
            let fragmentOffset = (Int(frame[at + 6]) & 0x1F) << 8 | Int(frame[at + 7])
            guard fragmentOffset == 0 else { return nil }
            protocolNumber = frame[at + 9]
            let total = Int(frame[at + 2]) << 8 | Int(frame[at + 3])
            let headerLength = Int(frame[at] & 0x0F) * 4
            let end = min(frame.count, total > 0 ? at + total : frame.count)
            return transport(Array(frame[(at + headerLength)..<max(at + headerLength, end)]), protocolNumber)
        case 6:
            guard at + 40 <= frame.count else { return nil }
            protocolNumber = frame[at + 6]  // next header; extension headers are not followed
            return transport(Array(frame[(at + 40)...]), protocolNumber)
        default: return nil
        }
    }

    private static func transport(_ segment: [UInt8], _ protocolNumber: UInt8) -> Packet? {
        let ports = { (UInt16(segment[0]) << 8 | UInt16(segment[1]), UInt16(segment[2]) << 8 | UInt16(segment[3])) }
        switch protocolNumber {
        case 17:
            guard segment.count >= 8 else { return nil }
            let (source, destination) = ports()
            return Packet(transport: 17, sourcePort: source, destinationPort: destination, payload: Array(segment[8...]))
        case 6:
            guard segment.count >= 20 else { return nil }
            let dataOffset = Int(segment[12] >> 4) * 4
            guard dataOffset >= 20, dataOffset <= segment.count else { return nil }
            let (source, destination) = ports()
            return Packet(
                transport: 6, sourcePort: source, destinationPort: destination, payload: Array(segment[dataOffset...]))
        default: return nil
        }
    }
}

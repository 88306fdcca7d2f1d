import Glibc
import SIPTransport

/// The network-order bytes of an address, for the headers pcap and HEP carry.
enum IPAddressBytes {
    /// 4 bytes for IPv4, 16 for IPv6.
    static func of(_ address: SocketAddress) -> [UInt8] {
        if address.isIPv6 {
            var raw = in6_addr()
            guard inet_pton(AF_INET6, address.ip, &raw) == 1 else { return Array(repeating: 0, count: 16) }
            return withUnsafeBytes(of: &raw) { Array($0) }
        }
        var raw = in_addr()
        guard inet_pton(AF_INET, address.ip, &raw) == 1 else { return [0, 0, 0, 0] }
        return withUnsafeBytes(of: &raw) { Array($0) }
    }

    /// 16 bytes: IPv6 as is, IPv4 as `::ffff:a.b.c.d` (RFC 4291 §2.5.5.2), for a packet whose two
    /// ends are of different families.
    static func v6(_ address: SocketAddress) -> [UInt8] {
        let bytes = of(address)
        return bytes.count == 16 ? bytes : Array(repeating: 0, count: 10) + [0xFF, 0xFF] + bytes
    }
}

/// Big-endian appends.
extension Array where Element == UInt8 {
    mutating func appendBE16(_ value: UInt16) {
        append(UInt8(value >> 8))
        append(UInt8(value & 0xFF))
    }

    mutating func appendBE32(_ value: UInt32) {
        appendBE16(UInt16(value >> 16))
        appendBE16(UInt16(value & 0xFFFF))
    }

    mutating func appendLE32(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { append(UInt8((value >> UInt32(shift)) & 0xFF)) }
    }

    mutating func appendLE16(_ value: UInt16) {
        append(UInt8(value & 0xFF))
        append(UInt8(value >> 8))
    }
}

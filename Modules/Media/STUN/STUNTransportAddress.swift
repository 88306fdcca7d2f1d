#if canImport(Glibc)
    import Glibc
#endif

/// An IP address and port as STUN carries them (RFC 8489 §14.1): 4 or 16 address octets.
public struct STUNTransportAddress: Sendable, Hashable, CustomStringConvertible {
    public var addressBytes: [UInt8]
    public var port: UInt16

    public init(addressBytes: [UInt8], port: UInt16) {
        self.addressBytes = addressBytes
        self.port = port
    }

    /// From a textual IPv4/IPv6 address; nil if it is neither.
    public init?(host: String, port: UInt16) {
        if host.contains(":") {
            var a = in6_addr()
            guard inet_pton(AF_INET6, host, &a) == 1 else { return nil }
            addressBytes = withUnsafeBytes(of: a) { Array($0) }
        } else {
            var a = in_addr()
            guard inet_pton(AF_INET, host, &a) == 1 else { return nil }
            addressBytes = withUnsafeBytes(of: a) { Array($0) }
        }
        self.port = port
    }

    public init?(_ address: UDPSocket.Address) { self.init(host: address.host, port: address.port) }

    public var isIPv6: Bool { addressBytes.count == 16 }

    /// Canonical text (`inet_ntop`).
    public var host: String {
        var text = [CChar](repeating: 0, count: 64)
        let family = isIPv6 ? AF_INET6 : AF_INET
        _ = addressBytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &text, socklen_t(text.count)) }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public var socketAddress: UDPSocket.Address { UDPSocket.Address(host: host, port: port) }
    public var description: String { socketAddress.description }
}

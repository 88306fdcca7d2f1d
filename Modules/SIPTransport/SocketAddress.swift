import CLinux
import Glibc

/// An IPv4 or IPv6 socket address (a `sockaddr_in` / `sockaddr_in6` by value).
public struct SocketAddress: Sendable, Hashable, CustomStringConvertible {
    /// The textual IP address, without brackets (`127.0.0.1`, `::1`).
    public let ip: String
    public let port: UInt16
    /// True for IPv6.
    public let isIPv6: Bool

    /// Parses a numeric IPv4 or IPv6 address (no name resolution); nil if `ip` is not numeric.
    public init?(ip: String, port: UInt16) {
        var v4 = in_addr()
        var v6 = in6_addr()
        let bare = ip.hasPrefix("[") && ip.hasSuffix("]") ? String(ip.dropFirst().dropLast()) : ip
        if inet_pton(AF_INET, bare, &v4) == 1 {
            isIPv6 = false
        } else if inet_pton(AF_INET6, bare, &v6) == 1 {
            isIPv6 = true
        } else {
            return nil
        }
        self.ip = bare
        self.port = port
    }

    /// Reads a `sockaddr` filled in by the kernel (accept, recvfrom, getsockname).
    init?(storage: sockaddr_storage) {
        var storage = storage
        switch Int32(storage.ss_family) {
        case AF_INET:
            let (ip, port) = withUnsafePointer(to: &storage) { ptr in
                ptr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin -> (String, UInt16) in
                    var addr = sin.pointee.sin_addr
                    var buf = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
                    inet_ntop(AF_INET, &addr, &buf, socklen_t(buf.count))
                    return (String(cChars: buf), UInt16(bigEndian: sin.pointee.sin_port))
                }
            }
            self.ip = ip
            self.port = port
            isIPv6 = false
        case AF_INET6:
            let (ip, port) = withUnsafePointer(to: &storage) { ptr in
                ptr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { sin -> (String, UInt16) in
                    var addr = sin.pointee.sin6_addr
                    var buf = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
                    inet_ntop(AF_INET6, &addr, &buf, socklen_t(buf.count))
                    return (String(cChars: buf), UInt16(bigEndian: sin.pointee.sin6_port))
                }
            }
            self.ip = ip
            self.port = port
            isIPv6 = true
        default:
            return nil
        }
    }

    /// `127.0.0.1:5060` or `[::1]:5060`.
    public var description: String { isIPv6 ? "[\(ip)]:\(port)" : "\(ip):\(port)" }

    /// The host part as it appears in a SIP URI or Via (`[::1]` for IPv6, RFC 3261 §25.1).
    public var uriHost: String { isIPv6 ? "[\(ip)]" : ip }

    var family: Int32 { isIPv6 ? AF_INET6 : AF_INET }

    /// Calls `body` with a `sockaddr` pointer and its length.
    func withSockAddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws -> R) rethrows -> R {
        if isIPv6 {
            var sin = sockaddr_in6()
            sin.sin6_family = sa_family_t(AF_INET6)
            sin.sin6_port = port.bigEndian
            inet_pton(AF_INET6, ip, &sin.sin6_addr)
            return try withUnsafePointer(to: &sin) {
                try $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    try body($0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = port.bigEndian
            inet_pton(AF_INET, ip, &sin.sin_addr)
            return try withUnsafePointer(to: &sin) {
                try $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    try body($0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
    }
}

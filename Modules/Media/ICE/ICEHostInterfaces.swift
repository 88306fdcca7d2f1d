#if canImport(Glibc)
    import Glibc
#endif

/// The addresses host candidates can be gathered on (RFC 8445 §5.1.1.1), from `getifaddrs`.
package enum ICEHostInterfaces {
    /// IPv4 (and, with `ipv6`, global IPv6) addresses of interfaces that are up; loopback only
    /// when `includeLoopback` (WEBRTC-NOTES: tests on 127.0.0.1 must ask for it). Link-local
    /// IPv6 is left out (RFC 8445 §5.1.1.1).
    public static func addresses(includeLoopback: Bool, ipv6: Bool = false) -> [String] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return includeLoopback ? ["127.0.0.1"] : [] }
        defer { freeifaddrs(list) }
        var out: [String] = []
        var cursor = list
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            let flags = Int32(entry.pointee.ifa_flags)
            guard flags & Int32(IFF_UP) != 0, let sa = entry.pointee.ifa_addr else { continue }
            let loopback = flags & Int32(IFF_LOOPBACK) != 0
            if loopback && !includeLoopback { continue }
            var storage = sockaddr_storage()
            let family = Int32(sa.pointee.sa_family)
            guard family == AF_INET || (ipv6 && family == AF_INET6) else { continue }
            withUnsafeMutableBytes(of: &storage) { dst in
                dst.copyMemory(
                    from: UnsafeRawBufferPointer(
                        start: sa,
                        count: family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size))
            }
            guard let address = UDPSocket.address(of: storage) else { continue }
            if address.host.lowercased().hasPrefix("fe80") { continue }
            if !out.contains(address.host) { out.append(address.host) }
        }
        return out
    }
}

import CLinux
import Dispatch
import Glibc

/// Host-name resolution: numeric addresses as is, names through getaddrinfo (A and AAAA,
/// in the system's RFC 6724 order). Runs off the cooperative thread pool.
public enum Resolver {
    public static func resolve(host: String, port: UInt16, transport: TransportKind) async throws(TransportError)
        -> [SocketAddress]
    {
        if let numeric = SocketAddress(ip: host, port: port) { return [numeric] }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        guard !bare.isEmpty else {
            throw TransportError(.invalidArgument, transport: transport, peer: host, "empty host")
        }
        let result: Result<[SocketAddress], TransportError> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: lookup(bare, port: port, transport: transport))
            }
        }
        return try result.get()
    }

    /// ``resolve(host:port:transport:)`` on the calling thread (getaddrinfo blocks it), for a
    /// caller that runs its own loop on its own thread (astra-register's one-shot over UDP).
    public static func resolveNow(host: String, port: UInt16, transport: TransportKind) throws(TransportError)
        -> [SocketAddress]
    {
        if let numeric = SocketAddress(ip: host, port: port) { return [numeric] }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        guard !bare.isEmpty else { throw TransportError(.invalidArgument, transport: transport, peer: host, "empty host") }
        return try lookup(bare, port: port, transport: transport).get()
    }

    static func lookup(_ host: String, port: UInt16, transport: TransportKind) -> Result<
        [SocketAddress], TransportError
    > {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = transport == .udp ? Int32(SOCK_DGRAM.rawValue) : Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_ADDRCONFIG
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0, let first = list else {
            let reason = String(cString: gai_strerror(rc))
            return .failure(
                TransportError(
                    .resolutionFailed, transport: transport, peer: "\(host):\(port)", "getaddrinfo: \(reason)"))
        }
        defer { freeaddrinfo(first) }
        var out: [SocketAddress] = []
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let current = node {
            if let sa = current.pointee.ai_addr {
                var storage = sockaddr_storage()
                withUnsafeMutableBytes(of: &storage) { dst in
                    dst.copyMemory(from: UnsafeRawBufferPointer(start: sa, count: Int(current.pointee.ai_addrlen)))
                }
                if let address = SocketAddress(storage: storage), !out.contains(address) { out.append(address) }
            }
            node = current.pointee.ai_next
        }
        if out.isEmpty {
            return .failure(
                TransportError(.resolutionFailed, transport: transport, peer: "\(host):\(port)", "no IPv4/IPv6 address")
            )
        }
        return .success(out)
    }
}

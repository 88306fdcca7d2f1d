import CLinux

#if canImport(Glibc)
import Glibc
#endif

/// A non-blocking IPv4/IPv6 UDP socket (BSD sockets). Owned by one actor or thread.
public final class UDPSocket: @unchecked Sendable {
    /// A socket address we send to / received from.
    public struct Address: Sendable, Hashable, CustomStringConvertible {
        public var host: String
        public var port: UInt16
        public init(host: String, port: UInt16) {
            self.host = host
            self.port = port
        }
        public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
    }

    public let fd: Int32
    public let localAddress: Address
    private var cachedPeer: (Address, sockaddr_storage, socklen_t)?

    /// Binds to `host:port` (port 0 = ephemeral).
    public init(bindHost: String = "127.0.0.1", port: UInt16 = 0) throws(MediaError) {
        var storage = sockaddr_storage()
        guard let length = Self.fill(&storage, host: bindHost, port: port) else {
            throw MediaError(.socket, "bad bind address \(bindHost)")
        }
        let family = Int32(storage.ss_family)
        // Non-blocking and close-on-exec from the start (decisions D49).
        let s = socket(
            family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard s >= 0 else { throw MediaError(.socket, "socket: errno \(errno)") }
        let rc = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(s, $0, length) }
        }
        guard rc == 0 else {
            let e = errno
            close(s)
            throw MediaError(.socket, "bind \(bindHost):\(port): errno \(e)")
        }
        var size: Int32 = 1 << 20
        _ = setsockopt(s, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        var bound = sockaddr_storage()
        var boundLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &bound) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(s, $0, &boundLength) }
        }
        fd = s
        localAddress = Self.address(of: bound) ?? Address(host: bindHost, port: port)
    }

    deinit { close(fd) }

    /// RFC 3550 §11: an RTP socket on an even port and its RTCP socket on the next (odd) one.
    /// With `port` 0 the kernel picks the RTP port and a pair is searched (a few tries: the
    /// odd neighbour may be taken); a given `port` must have its neighbour free.
    public static func bindPair(host: String, port: UInt16) throws(MediaError) -> (rtp: UDPSocket, rtcp: UDPSocket) {
        if port != 0 {
            guard port < UInt16.max else { throw MediaError(.socket, "no RTCP port after \(port)") }
            let rtp = try UDPSocket(bindHost: host, port: port)
            do { return (rtp, try UDPSocket(bindHost: host, port: port + 1)) } catch {
                throw MediaError(.socket, "RTCP port \(port + 1) (RTP port + 1, RFC 3550 §11): \(error)")
            }
        }
        var lastError = MediaError(.socket, "no free RTP/RTCP port pair")
        for _ in 0..<32 {
            let rtp = try UDPSocket(bindHost: host, port: 0)
            let p = rtp.localAddress.port
            guard p % 2 == 0, p < UInt16.max else { continue }
            do { return (rtp, try UDPSocket(bindHost: host, port: p + 1)) } catch { lastError = error }
        }
        throw lastError
    }

    /// Sends one datagram; returns false if the kernel would block or refused it.
    @discardableResult
    public func send(_ bytes: UnsafeRawBufferPointer, to peer: Address) -> Bool {
        if cachedPeer?.0 != peer {
            var storage = sockaddr_storage()
            guard let length = Self.fill(&storage, host: peer.host, port: peer.port) else { return false }
            cachedPeer = (peer, storage, length)
        }
        guard let (_, peerStorage, length) = cachedPeer else { return false }
        var storage = peerStorage
        let n = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(fd, bytes.baseAddress, bytes.count, 0, $0, length)
            }
        }
        return n == bytes.count
    }

    @discardableResult
    public func send(_ bytes: [UInt8], to peer: Address) -> Bool { bytes.withUnsafeBytes { send($0, to: peer) } }

    /// Connects the socket to `peer` (the kernel then drops datagrams from anyone else and
    /// skips the per-packet route lookup); send with ``sendConnected(_:)``.
    public func connect(to peer: Address) throws(MediaError) {
        var storage = sockaddr_storage()
        guard let length = Self.fill(&storage, host: peer.host, port: peer.port) else {
            throw MediaError(.socket, "bad address \(peer)")
        }
        let rc = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, length) }
        }
        guard rc == 0 else { throw MediaError(.socket, "connect \(peer): errno \(errno)") }
    }

    /// Sends on a connected socket.
    @discardableResult
    public func sendConnected(_ bytes: UnsafeRawBufferPointer) -> Bool {
        Glibc.send(fd, bytes.baseAddress, bytes.count, 0) == bytes.count
    }

    /// Receives one datagram into `buffer`; nil when none is waiting.
    public func receive(into buffer: UnsafeMutableRawBufferPointer) -> (count: Int, from: Address?)? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let n = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                recvfrom(fd, buffer.baseAddress, buffer.count, 0, $0, &length)
            }
        }
        guard n >= 0 else { return nil }
        return (n, Self.address(of: storage))
    }

    /// Receives one datagram without caring about the sender (hot path).
    @inline(__always)
    public func receive(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        recv(fd, buffer.baseAddress, buffer.count, 0)
    }

    static func fill(_ storage: inout sockaddr_storage, host: String, port: UInt16) -> socklen_t? {
        if host.contains(":") {
            var a = sockaddr_in6()
            a.sin6_family = sa_family_t(AF_INET6)
            a.sin6_port = port.bigEndian
            guard inet_pton(AF_INET6, host, &a.sin6_addr) == 1 else { return nil }
            withUnsafeMutableBytes(of: &storage) { dst in withUnsafeBytes(of: a) { dst.copyMemory(from: $0) } }
            return socklen_t(MemoryLayout<sockaddr_in6>.size)
        }
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &a.sin_addr) == 1 else { return nil }
        withUnsafeMutableBytes(of: &storage) { dst in withUnsafeBytes(of: a) { dst.copyMemory(from: $0) } }
        return socklen_t(MemoryLayout<sockaddr_in>.size)
    }

    private static func string(_ text: [CChar]) -> String {
        String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func address(of storage: sockaddr_storage) -> Address? {
        var text = [CChar](repeating: 0, count: 64)
        var s = storage
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &s) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { p -> Address? in
                    var addr = p.pointee.sin_addr
                    guard inet_ntop(AF_INET, &addr, &text, socklen_t(text.count)) != nil else { return nil }
                    return Address(host: Self.string(text), port: UInt16(bigEndian: p.pointee.sin_port))
                }
            }
        case AF_INET6:
            return withUnsafePointer(to: &s) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { p -> Address? in
                    var addr = p.pointee.sin6_addr
                    guard inet_ntop(AF_INET6, &addr, &text, socklen_t(text.count)) != nil else { return nil }
                    return Address(host: Self.string(text), port: UInt16(bigEndian: p.pointee.sin6_port))
                }
            }
        default: return nil
        }
    }
}

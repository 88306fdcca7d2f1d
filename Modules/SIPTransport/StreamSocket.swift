import CLinux
import Glibc

/// Non-blocking TCP sockets for a caller that runs its own event loop on one thread (the
/// connection-oriented load engine): open and start connecting, learn how the connect ended,
/// read what the kernel holds. No queue, task or actor per socket; the caller owns the
/// descriptor and closes it.
package enum StreamSocket {
    /// A non-blocking, close-on-exec TCP socket with `TCP_NODELAY` (SIP messages are small and
    /// latency-bound), connecting to `address`. `connected` is true when the connect finished at
    /// once (loopback sometimes does); otherwise wait for the descriptor to be writable and ask
    /// ``connectError(_:)``.
    public static func open(to address: SocketAddress) throws(TransportError) -> (fd: Int32, connected: Bool) {
        let fd: Int32
        do {
            fd = try Socket.make(family: address.family, type: Int32(SOCK_STREAM.rawValue))
        } catch {
            throw TransportError(.socketFailed, transport: .tcp, peer: address.description, "socket(): \(error)")
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        if address.withSockAddr({ Glibc.connect(fd, $0, $1) }) == 0 { return (fd, true) }
        let e = errno
        guard e == EINPROGRESS || e == EINTR else {
            Glibc.close(fd)
            throw TransportError(.connectFailed, transport: .tcp, peer: address.description,
                                 "connect(): \(SocketErrno(code: e))")
        }
        return (fd, false)
    }

    /// How a pending connect ended (`SO_ERROR`): nil when connected, else the reason.
    public static func connectError(_ fd: Int32) -> String? {
        var soError: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &length) == 0 else { return "getsockopt(): \(SocketErrno(code: errno))" }
        return soError == 0 ? nil : "connect(): \(SocketErrno(code: soError))"
    }

    /// The address a socket is bound to (getsockname): a stream's Via sent-by over TCP/TLS, a
    /// connected UDP socket's source address. The one getsockname → ``SocketAddress`` of the module.
    public static func localAddress(_ fd: Int32) -> SocketAddress? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let rc = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return rc == 0 ? SocketAddress(storage: storage) : nil
    }

    /// What a read or write ended with.
    public enum IOResult: Equatable {
        /// `n` bytes moved.
        case bytes(Int)
        /// Nothing now (`EAGAIN`): wait for the next readiness.
        case wouldBlock
        /// The peer closed its side (read only).
        case endOfFile
        case failed(String)
    }

    /// One `read(2)` into `buffer`.
    public static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> IOResult {
        while true {
            let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
            if n > 0 { return .bytes(n) }
            if n == 0 { return .endOfFile }
            let e = errno
            if e == EINTR { continue }
            return e == EAGAIN || e == EWOULDBLOCK ? .wouldBlock : .failed("read(): \(SocketErrno(code: e))")
        }
    }

    /// One `send(2)` of `bytes` (no SIGPIPE on a closed peer).
    public static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> IOResult {
        while true {
            let n = Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
            if n >= 0 { return .bytes(n) }
            let e = errno
            if e == EINTR { continue }
            return e == EAGAIN || e == EWOULDBLOCK ? .wouldBlock : .failed("send(): \(SocketErrno(code: e))")
        }
    }
}

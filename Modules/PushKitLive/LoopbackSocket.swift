import Dispatch
import Glibc

/// A blocking TCP socket to a loopback (or any IPv4) service, for the small request/response
/// client of live mode: the gateway's HTTP API (the APNs device connection, open for a device's
/// life, is a non-blocking HTTPLite `TCPConnection`). Blocking IO runs on Dispatch
/// threads, never on the Swift concurrency pool (2 shared cores: a blocked pool thread stalls
/// every actor).
final class LoopbackSocket: @unchecked Sendable {
    let fd: Int32

    private init(fd: Int32) { self.fd = fd }

    /// Connects to `host:port` (IPv4 literal) with a send/receive timeout.
    static func connect(host: String, port: UInt16, timeoutMs: Int = 2_000) throws(LiveError) -> LoopbackSocket {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw LiveError(.network, "socket(): errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            close(fd)
            throw LiveError(.usage, "\(host) is not an IPv4 address")
        }
        var timeout = timeval(tv_sec: timeoutMs / 1000, tv_usec: (timeoutMs % 1000) * 1000)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard rc == 0 else {
            let e = errno
            close(fd)
            throw LiveError(.network, "connect \(host):\(port): \(String(cString: strerror(e)))")
        }
        return LoopbackSocket(fd: fd)
    }

    /// Sets the receive timeout (0 = block forever).
    func setReceiveTimeout(ms: Int) {
        var timeout = timeval(tv_sec: ms / 1000, tv_usec: (ms % 1000) * 1000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Writes every byte.
    func writeAll(_ bytes: [UInt8]) throws(LiveError) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes {
                send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw LiveError(.network, "send(): \(String(cString: strerror(errno)))")
            }
            offset += n
        }
    }

    /// Reads what is available (blocking); empty = end of stream; throws on error or timeout.
    func readSome(max: Int = 16_384) throws(LiveError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: max)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, max, 0) }
            if n >= 0 { return Array(buffer.prefix(n)) }
            if errno == EINTR { continue }
            throw LiveError(.network, "recv(): \(String(cString: strerror(errno)))")
        }
    }

    deinit { close(fd) }
}

/// Where blocking socket work runs: a queue of our own, which libdispatch backs with overcommit
/// threads. Not `DispatchQueue.global()`: that is as wide as the cores and shares its threads with
/// Swift concurrency's pool, so blocked connects and reads there stall every task in the process.
private let blockingQueue = DispatchQueue(label: "astra.pushkit-live.blocking", attributes: .concurrent)

/// Runs blocking work off the cooperative pool and awaits it.
func offPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        blockingQueue.async { continuation.resume(returning: work()) }
    }
}

import Dispatch
import Glibc

/// A listening TCP socket (IPv4, numeric address — loopback in practice) that hands each accepted
/// connection to ``connections``. Used by ``HTTPServer`` and by other small servers (the wake
/// gateway's APNs device port).
public final class TCPListener: @unchecked Sendable {
    public let host: String
    /// The bound port (the kernel's choice when 0 was asked).
    public let port: UInt16
    public let connections: AsyncStream<TCPConnection>
    /// Each time `accept()` failed for want of descriptors (EMFILE/ENFILE) or kernel memory: the
    /// count of such failures so far. The owner frees a descriptor (evicts its quietest
    /// connection); the listener has paused and retries by itself (10 ms doubling to 1 s).
    public let descriptorPressure: AsyncStream<Int>
    private let pressure: AsyncStream<Int>.Continuation
    private let sink: AsyncStream<TCPConnection>.Continuation
    private let source: DispatchSourceRead

    public init(host: String = "127.0.0.1", port: UInt16 = 0, backlog: Int32 = 1_024) throws(HTTPLiteError) {
        let fd = socket(
            AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw HTTPLiteError("socket(): \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address: sockaddr_in
        do { address = try SocketAddressV4.make(host: host, port: port) } catch {
            Glibc.close(fd)
            throw error
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, backlog) == 0 else {
            let e = errno
            Glibc.close(fd)
            throw HTTPLiteError("listen on \(host):\(port): \(String(cString: strerror(e)))")
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.host = host
        self.port = UInt16(bigEndian: actual.sin_port)
        (connections, sink) = AsyncStream.makeStream(of: TCPConnection.self)
        (descriptorPressure, pressure) = AsyncStream.makeStream(of: Int.self, bufferingPolicy: .bufferingNewest(1))
        let sink = sink
        let queue = DispatchQueue(label: "astra.httplite.listen.\(self.port)")
        source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        let pressure = pressure
        let backoff = Backoff(source)
        source.setEventHandler {
            while true {
                var peer = sockaddr_in()
                var peerLength = socklen_t(MemoryLayout<sockaddr_in>.size)
                let client = withUnsafeMutablePointer(to: &peer) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        accept(fd, $0, &peerLength)
                    }
                }
                guard client >= 0 else {
                    let e = errno
                    guard e == EMFILE || e == ENFILE || e == ENOBUFS || e == ENOMEM else { return }
                    // Out of descriptors (or kernel memory): the pending connection stays in the
                    // backlog and the source stays readable, so retrying at once would spin. Pause
                    // accepting, ask the owner to free a descriptor (evict its quietest
                    // connection), and retry after a back-off that doubles up to 1 s.
                    backoff.failures += 1
                    let pause = backoff.nextMs()
                    backoff.source.suspend()
                    pressure.yield(backoff.failures)
                    queue.asyncAfter(deadline: .now() + .milliseconds(pause)) { backoff.source.resume() }
                    return
                }
                backoff.reset()
                _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
                _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                var on: Int32 = 1
                setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
                var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
                inet_ntop(AF_INET, &peer.sin_addr, &text, socklen_t(INET_ADDRSTRLEN))
                let ip = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                let remote = ip + ":\(UInt16(bigEndian: peer.sin_port))"
                sink.yield(TCPConnection(fd: client, remote: remote, remoteIP: ip))
            }
        }
        source.setCancelHandler {
            Glibc.close(fd)
            sink.finish()
            pressure.finish()
        }
        source.resume()
    }

    /// The accept back-off (confined to the listener's queue). It holds the source it pauses: the
    /// cycle source → handler → back-off → source ends when the source is cancelled (Dispatch
    /// drops its handlers), and a suspended source is never released before its resume.
    private final class Backoff: @unchecked Sendable {
        let source: DispatchSourceRead
        init(_ source: DispatchSourceRead) { self.source = source }
        var failures = 0
        private var currentMs = 0
        func nextMs() -> Int {
            currentMs = currentMs == 0 ? 10 : min(currentMs * 2, 1_000)
            return currentMs
        }
        func reset() { currentMs = 0 }
    }

    /// Stops accepting; ``connections`` ends. Open connections are their owners' to close.
    public func close() { source.cancel() }

    deinit { source.cancel() }
}

import CLinux
import Dispatch
import Glibc
import Synchronization

/// A listening TCP socket (IPv4, numeric address — loopback in practice) that hands each accepted
/// connection to ``connections``. Used by ``HTTPServer`` and by other small servers (the wake
/// gateway's APNs device port).
public final class TCPListener: @unchecked Sendable {
    public let host: String
    /// The bound port (the kernel's choice when 0 was asked).
    public let port: UInt16
    public let connections: AsyncStream<TCPConnection>
    /// Each time `accept()` failed for want of descriptors (EMFILE/ENFILE) or kernel memory with a
    /// connection waiting: the count of such failures so far. The owner frees a descriptor
    /// (evicts its quietest connection); the listener has paused and retries by itself (10 ms
    /// doubling to 1 s).
    public let descriptorPressure: AsyncStream<Int>
    private let pressure: AsyncStream<Int>.Continuation
    private let sink: AsyncStream<TCPConnection>.Continuation
    private let source: DispatchSourceRead
    private let loop: AcceptLoop

    /// `accept()` failures for want of descriptors or kernel memory, with a connection waiting,
    /// since start: each one is a pause of the listener (10 ms doubling to 1 s), so a count that grows by a few a second
    /// under sustained pressure — never thousands — shows the listener does not spin.
    public var acceptFailures: Int { loop.failures.load(ordering: .relaxed) }

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
        let queue = ConnectionQueues.next()
        source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        let loop = AcceptLoop(fd: fd, queue: queue, source: source, sink: sink, pressure: pressure)
        self.loop = loop
        source.setEventHandler { loop.drain() }
        let sink = sink, pressure = pressure
        source.setCancelHandler {
            Glibc.close(fd)
            sink.finish()
            pressure.finish()
        }
        source.resume()
    }

    /// Accepts on the listener's queue until `EAGAIN`; out of descriptors with a connection
    /// waiting, pauses and retries by itself. It holds the source it pauses: the cycle source →
    /// handler → loop → source ends when the source is cancelled (Dispatch drops its handlers),
    /// and a suspended source is never released before its resume.
    private final class AcceptLoop: @unchecked Sendable {
        let fd: Int32
        let queue: DispatchQueue
        let source: DispatchSourceRead
        let sink: AsyncStream<TCPConnection>.Continuation
        let pressure: AsyncStream<Int>.Continuation
        let failures = Atomic<Int>(0)
        /// Queue-confined: the source is suspended for a back-off.
        private var paused = false
        private var pauseMs = 0

        init(
            fd: Int32, queue: DispatchQueue, source: DispatchSourceRead, sink: AsyncStream<TCPConnection>.Continuation,
            pressure: AsyncStream<Int>.Continuation
        ) {
            self.fd = fd
            self.queue = queue
            self.source = source
            self.sink = sink
            self.pressure = pressure
        }

        /// On ``queue``: every pending connection, until the backlog is empty or descriptors run out.
        func drain() {
            while !paused, !source.isCancelled {
                var peer = sockaddr_in()
                var peerLength = socklen_t(MemoryLayout<sockaddr_in>.size)
                let client = withUnsafeMutablePointer(to: &peer) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        // Close-on-exec and non-blocking from the accept itself: no window in which
                        // another thread's fork/exec inherits the connection (decisions D49).
                        accept4(fd, $0, &peerLength, Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue))
                    }
                }
                guard client >= 0 else {
                    let e = errno
                    if e == EINTR || e == ECONNABORTED { continue }
                    // Linux takes the descriptor before it looks at the backlog: with the table
                    // full, `accept()` says EMFILE even when nobody waits — as after every accept
                    // that took the last descriptor. Evicting then would close a healthy
                    // connection (the one just accepted, when it is the owner's only one), so
                    // only a connection really waiting starts a back-off.
                    if e == EMFILE || e == ENFILE || e == ENOBUFS || e == ENOMEM, connectionWaiting() { backOff() }
                    return
                }
                pauseMs = 0
                adopt(client, peer)
            }
        }

        /// Whether the backlog holds a connection (`poll`, which needs no descriptor).
        private func connectionWaiting() -> Bool {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            return poll(&entry, 1, 0) == 1 && entry.revents & Int16(POLLIN) != 0
        }

        /// Out of descriptors (or kernel memory): the pending connection stays in the backlog and
        /// the source stays readable, so retrying at once would spin. Pause accepting, ask the
        /// owner to free a descriptor (evict its quietest connection), and resume after a back-off
        /// that doubles up to 1 s.
        private func backOff() {
            let count = failures.add(1, ordering: .relaxed).newValue
            pauseMs = pauseMs == 0 ? 10 : min(pauseMs * 2, 1_000)
            paused = true
            source.suspend()
            pressure.yield(count)
            queue.asyncAfter(deadline: .now() + .milliseconds(pauseMs)) { [self] in
                paused = false
                source.resume()  // the waiting connection raises the next event
            }
        }

        private func adopt(_ client: Int32, _ peer: sockaddr_in) {
            var peer = peer
            var on: Int32 = 1
            setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            inet_ntop(AF_INET, &peer.sin_addr, &text, socklen_t(INET_ADDRSTRLEN))
            let ip = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            sink.yield(TCPConnection(fd: client, remote: ip + ":\(UInt16(bigEndian: peer.sin_port))", remoteIP: ip))
        }
    }

    /// Stops accepting; ``connections`` ends. Open connections are their owners' to close.
    public func close() { source.cancel() }

    deinit { source.cancel() }
}

import Dispatch
import Glibc

/// One accepted (or connected) TCP stream on a non-blocking socket, driven by a Dispatch read
/// source on its own serial queue. Reads arrive in order on ``events`` (`.data`, then one
/// `.closed`); writes run on the same queue and wait for writability with `poll` there, so the
/// Swift cooperative pool never blocks.
public final class TCPConnection: @unchecked Sendable {
    public enum Event: Sendable, Hashable {
        case data([UInt8])
        /// EOF, a read error, or ``close()``.
        case closed
    }

    /// `ip:port` of the peer.
    public let remote: String
    /// The peer's IP (no port): what per-peer limits count.
    public let remoteIP: String
    public let events: AsyncStream<Event>
    private let fd: Int32
    private let queue: DispatchQueue
    private let source: DispatchSourceRead
    private let sink: AsyncStream<Event>.Continuation
    // Confined to `queue`:
    /// Our side is done: no more writes; the descriptor is closed once the read source is gone.
    private var closed = false
    /// The peer's side is done (EOF or error) or we closed: ``events`` has ended.
    private var readEnded = false
    /// The read source's cancel handler ran (Dispatch no longer uses the descriptor).
    private var sourceGone = false

    init(fd: Int32, remote: String, remoteIP: String) {
        self.fd = fd
        self.remote = remote
        self.remoteIP = remoteIP
        queue = DispatchQueue(label: "astra.httplite.conn")
        source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        (events, sink) = AsyncStream.makeStream(of: Event.self)
        let sink = sink
        // Each wake-up reads until EAGAIN, EOF or an error: libdispatch's epoll backend turns
        // EPOLLHUP (both halves shut, e.g. after ``finishWriting()`` and the peer's FIN) into one
        // last event and then deletes the source, so a read left for "the next event" — the EOF
        // behind the last bytes — would never come (docs/decisions.md D29).
        source.setEventHandler { [self] in
            var buffer = [UInt8](repeating: 0, count: 16_384)
            while !readEnded {
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n > 0 {
                    sink.yield(.data(Array(buffer[0..<n])))
                    continue
                }
                let e = errno
                if n < 0 && e == EINTR { continue }
                if n < 0 && (e == EAGAIN || e == EWOULDBLOCK) { return }
                // EOF is only the peer's half (RFC 9112 §9.6): a request that came with its FIN
                // is still answered — writes stay possible until ``close()``.
                endRead()
            }
        }
        source.setCancelHandler { [self] in
            sourceGone = true
            if closed { Glibc.close(fd) }
        }
        source.resume()
    }

    /// Connects to `host:port` (IPv4 numeric, e.g. 127.0.0.1) — the client side, for tests and
    /// small tools. Blocking connect with a short timeout; loopback only in practice.
    public static func connect(host: String, port: UInt16) throws(HTTPLiteError) -> TCPConnection {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw HTTPLiteError("socket(): \(String(cString: strerror(errno)))") }
        var address = try SocketAddressV4.make(host: host, port: port)
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard rc == 0 else {
            let e = errno
            Glibc.close(fd)
            throw HTTPLiteError("connect \(host):\(port): \(String(cString: strerror(e)))")
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        return TCPConnection(fd: fd, remote: "\(host):\(port)", remoteIP: host)
    }

    /// Writes all of `bytes`; false when the connection is closed or the peer stopped reading for
    /// `timeoutMs`.
    @discardableResult
    public func write(_ bytes: [UInt8], timeoutMs: Int32 = 5_000) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            queue.async { [self] in
                continuation.resume(returning: writeNow(bytes, timeoutMs: timeoutMs))
            }
        }
    }

    /// Queues `bytes` for writing now, in call order: two calls from one actor are written in the
    /// order they were made. (``write(_:timeoutMs:)`` is `async` on a non-isolated class, so an
    /// actor calling it hops to the global executor first and two calls can reach the queue
    /// swapped — fine for whole messages, fatal for a byte stream cut in pieces, such as TLS
    /// records: seen as `bad record mac` at the peer.) `done` gets whether everything was written.
    public func enqueue(_ bytes: [UInt8], timeoutMs: Int32 = 5_000, done: (@Sendable (Bool) -> Void)? = nil) {
        queue.async { [self] in
            let ok = writeNow(bytes, timeoutMs: timeoutMs)
            done?(ok)
        }
    }

    private func writeNow(_ bytes: [UInt8], timeoutMs: Int32) -> Bool {
        guard !closed else { return false }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n > 0 {
                offset += n
                continue
            }
            let e = errno
            if e == EINTR { continue }
            guard e == EAGAIN || e == EWOULDBLOCK else { return false }
            var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            guard poll(&pfd, 1, timeoutMs) == 1 else { return false }
        }
        return true
    }

    /// Closes the socket; ``events`` ends with `.closed`.
    public func close() { queue.async { [self] in shutDown() } }

    /// Half-closes our sending side (`shutdown(SHUT_WR)`): the peer reads EOF after what was written.
    public func finishWriting() { queue.async { [self] in if !closed { _ = shutdown(fd, Int32(SHUT_WR)) } } }

    private func endRead() {
        guard !readEnded else { return }
        readEnded = true
        source.cancel()
        sink.yield(.closed)
        sink.finish()
    }

    private func shutDown() {
        guard !closed else { return }
        closed = true
        endRead()
        if sourceGone { Glibc.close(fd) }
    }

    deinit { sink.finish() }
}

/// A setup failure of a listener or connection, one line.
public struct HTTPLiteError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

enum SocketAddressV4 {
    static func make(host: String, port: UInt16) throws(HTTPLiteError) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            throw HTTPLiteError("'\(host)' is not a numeric IPv4 address")
        }
        return address
    }
}

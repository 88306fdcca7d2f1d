import Dispatch
import Glibc

/// One accepted (or connected) TCP stream on a non-blocking socket, driven by Dispatch sources
/// on one of the shared connection queues (``ConnectionQueues``: a fixed set, never a queue per
/// connection). Reads arrive in order on ``events`` (`.data`, then one `.closed`). Writes are
/// queued in call order in an outbox and sent at once; what the socket does not take waits for a
/// write source, so neither the Swift cooperative pool nor a shared queue ever blocks on a peer
/// that does not read (docs/decisions.md D44).
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
    /// ``close()`` was asked: no more writes; the descriptor is closed once the outbox is empty
    /// (or given up) and no source uses it.
    private var closed = false
    /// The outbox is done with (empty, failed or timed out) after ``close()``.
    private var released = false
    /// The peer's side is done (EOF or error) or we closed: ``events`` has ended.
    private var readEnded = false
    /// Dispatch sources whose cancel handler has not run yet (they still use the descriptor).
    private var sourcesAlive = 1
    private var fdClosed = false
    /// Writes not yet sent whole, in call order.
    private var outbox = WriteOutbox()
    /// Created on the first write the socket could not take; resumed only while the outbox waits.
    private var writeSource: DispatchSourceWrite?
    private var writeArmed = false
    /// A write failed or timed out: the byte stream is torn, later writes fail at once.
    private var writeBroken = false
    /// ``finishWriting()`` was asked while bytes were still waiting.
    private var finishAfterDrain = false
    /// When the outbox last made progress, and whether a deadline check is scheduled.
    private var lastProgress = DispatchTime.now()
    private var deadlineArmed = false

    init(fd: Int32, remote: String, remoteIP: String) {
        self.fd = fd
        self.remote = remote
        self.remoteIP = remoteIP
        queue = ConnectionQueues.next()
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
        source.setCancelHandler { [self] in sourceGone() }
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

    /// Writes all of `bytes`; false when the connection is closed, a write failed, or the peer
    /// took no bytes for `timeoutMs` (the connection is then closed: its stream is torn).
    @discardableResult
    public func write(_ bytes: [UInt8], timeoutMs: Int32 = 5_000) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            queue.async { [self] in submit(bytes, timeoutMs: timeoutMs) { continuation.resume(returning: $0) } }
        }
    }

    /// Queues `bytes` for writing now, in call order: two calls from one actor are written in the
    /// order they were made. (``write(_:timeoutMs:)`` is `async` on a non-isolated class, so an
    /// actor calling it hops to the global executor first and two calls can reach the queue
    /// swapped — fine for whole messages, fatal for a byte stream cut in pieces, such as TLS
    /// records: seen as `bad record mac` at the peer.) `done` gets whether everything was written;
    /// it runs on a shared connection queue and must not block.
    public func enqueue(_ bytes: [UInt8], timeoutMs: Int32 = 5_000, done: (@Sendable (Bool) -> Void)? = nil) {
        queue.async { [self] in submit(bytes, timeoutMs: timeoutMs, done: done) }
    }

    /// On `queue`: into the outbox, and out at once unless earlier bytes are still waiting for
    /// writability (then the write source sends them all, in order).
    private func submit(_ bytes: [UInt8], timeoutMs: Int32, done: WriteOutbox.Done?) {
        guard !closed, !writeBroken else {
            done?(false)
            return
        }
        outbox.append(bytes, timeoutMs: timeoutMs, done: done)
        if !writeArmed { pump() }
    }

    /// On `queue`: sends what the socket takes; waits for the write source when it is full.
    private func pump() {
        let before = outbox.sentBytes
        let (result, completed) = outbox.flush { raw in
            let n = send(fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL))
            return n >= 0 ? n : -Int(errno)
        }
        if outbox.sentBytes != before { lastProgress = .now() }
        switch result {
        case .drained:
            disarmWrite()
            for done in completed { done(true) }
            if finishAfterDrain {
                finishAfterDrain = false
                _ = shutdown(fd, Int32(SHUT_WR))
            }
            if closed { release() }
        case .blocked(let timeoutMs):
            for done in completed { done(true) }
            armWrite()
            armDeadline(timeoutMs)
        case .failed:
            for done in completed { done(true) }
            giveUpWriting()
        }
    }

    /// The outbox can never be sent: its writes fail, later ones too.
    private func giveUpWriting() {
        writeBroken = true
        finishAfterDrain = false
        disarmWrite()
        for done in outbox.failAll() { done(false) }
        if closed { release() }
    }

    private func armWrite() {
        guard !writeArmed else { return }
        writeArmed = true
        if let writeSource {
            writeSource.resume()
            return
        }
        let created = DispatchSource.makeWriteSource(fileDescriptor: fd, queue: queue)
        created.setEventHandler { [self] in if writeArmed, !released { pump() } }
        created.setCancelHandler { [self] in sourceGone() }
        sourcesAlive += 1
        writeSource = created
        created.resume()
    }

    private func disarmWrite() {
        guard writeArmed, !released, let writeSource else { return }
        writeArmed = false
        writeSource.suspend()
    }

    /// A peer that takes no bytes for the head write's `timeoutMs` is given up on: the pending
    /// writes fail and the connection closes (one check scheduled at a time, re-armed on progress).
    private func armDeadline(_ timeoutMs: Int32) {
        guard !deadlineArmed else { return }
        deadlineArmed = true
        queue.asyncAfter(deadline: lastProgress + .milliseconds(Int(timeoutMs))) { [weak self] in
            guard let self else { return }
            deadlineArmed = false
            guard !outbox.isEmpty, !writeBroken else { return }
            let timeout = outbox.entries.first?.timeoutMs ?? timeoutMs
            if DispatchTime.now() >= lastProgress + .milliseconds(Int(timeout)) {
                giveUpWriting()
                shutDown()
            } else {
                armDeadline(timeout)
            }
        }
    }

    /// Closes the socket; ``events`` ends with `.closed` at once. Bytes already queued are still
    /// written (within their timeout) before the descriptor is closed.
    public func close() { queue.async { [self] in shutDown() } }

    /// Half-closes our sending side (`shutdown(SHUT_WR)`) after what was queued: the peer reads
    /// EOF after it.
    public func finishWriting() {
        queue.async { [self] in
            guard !closed, !writeBroken else { return }
            if outbox.isEmpty { _ = shutdown(fd, Int32(SHUT_WR)) } else { finishAfterDrain = true }
        }
    }

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
        if outbox.isEmpty { release() }
    }

    /// Closed and nothing left to write: the write source goes, then the descriptor.
    private func release() {
        guard !released else { return }
        released = true
        if let writeSource {
            writeSource.cancel()
            if !writeArmed {
                writeArmed = true
                writeSource.resume()  // a suspended source never runs its cancel handler
            }
        }
        closeIfDone()
    }

    private func sourceGone() {
        sourcesAlive -= 1
        closeIfDone()
    }

    private func closeIfDone() {
        guard released, sourcesAlive == 0, !fdClosed else { return }
        fdClosed = true
        Glibc.close(fd)
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

import CLinux
import Dispatch
import Glibc

/// What a socket's read side reports.
enum ReadEvent: Sendable {
    /// Bytes from a stream socket.
    case data([UInt8])
    /// One datagram and its source (UDP).
    case datagram([UInt8], from: SocketAddress)
    /// Orderly close by the peer (read returned 0).
    case eof
    /// A read error (errno).
    case error(Int32)
}

/// A non-blocking BSD socket driven by Dispatch read/write sources on one of the process's few
/// shared ``SocketQueue``s.
///
/// Reads are delivered in order to one handler (which yields into the owning actor's
/// `AsyncStream`); writes are non-blocking and wait for writability only on `EAGAIN`. The file
/// descriptor is closed once both sources are cancelled (the Dispatch rule), after ``close()``.
final class SocketChannel: @unchecked Sendable {
    let fd: Int32
    let isDatagram: Bool
    private let queue: DispatchQueue
    /// The shared queue's receive buffer (only touched by handlers running on `queue`).
    private let buffer: UnsafeMutableRawBufferPointer
    private let readSource: DispatchSourceRead
    private let writeSource: DispatchSourceWrite
    // Confined to `queue`:
    private var readStarted = false
    private var readCancelled = false
    private var writeSuspended = true
    private var writeCancelled = false
    private var closeRequested = false
    private var fdClosed = false
    private var writeWaiters: [CheckedContinuation<Bool, Never>] = []
    /// A ``wakeWriteWaiters()`` that found no waiter, for the next ``waitWritable()``.
    private var keptWake = false

    init(fd: Int32, datagram: Bool) {
        self.fd = fd
        self.isDatagram = datagram
        let shared = SocketQueue.next()
        queue = shared.queue
        buffer = shared.buffer
        readSource = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        writeSource = DispatchSource.makeWriteSource(fileDescriptor: fd, queue: queue)
        writeSource.setEventHandler { [self] in
            let waiters = writeWaiters
            writeWaiters = []
            if !writeSuspended {
                writeSuspended = true
                writeSource.suspend()
            }
            for waiter in waiters { waiter.resume(returning: true) }
        }
        writeSource.setCancelHandler { [self] in
            writeCancelled = true
            closeIfDone()
        }
        readSource.setCancelHandler { [self] in
            readCancelled = true
            closeIfDone()
        }
    }

    // The sources' handlers retain the channel until ``close()`` cancels them: an owner must
    // call close() exactly once (actors do it in `deinit` and on failure).

    /// Starts delivering reads to `handler`, in order, until EOF, an error or ``close()``.
    func startReading(_ handler: @escaping @Sendable (ReadEvent) -> Void) {
        let fd = fd
        let datagram = isDatagram
        // The queue's receive buffer, shared by every socket on it (one handler runs at a time
        // there, and each copies its bytes out before returning); a datagram socket is drained
        // until EAGAIN so a burst costs one wake-up.
        let buffer = buffer
        readSource.setEventHandler { [self] in
            if datagram {
                for _ in 0..<256 {
                    var storage = sockaddr_storage()
                    var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
                    let n = withUnsafeMutablePointer(to: &storage) { sp in
                        sp.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            recvfrom(fd, buffer.baseAddress, buffer.count, 0, $0, &length)
                        }
                    }
                    if n < 0 {
                        let e = errno
                        if e == EINTR { continue }
                        return
                    }
                    if let from = SocketAddress(storage: storage) {
                        handler(.datagram(Array(UnsafeRawBufferPointer(rebasing: buffer[0..<n])), from: from))
                    }
                }
                return
            }
            // A stream is read until EAGAIN, EOF or an error on every wake-up: libdispatch's epoll
            // backend delivers EPOLLHUP (both halves shut) as one last event and then deletes the
            // source, so bytes or an EOF left for a later event would never arrive (D29).
            while true {
                let n = read(fd, buffer.baseAddress, buffer.count)
                if n > 0 {
                    handler(.data(Array(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))))
                    continue
                }
                if n == 0 {
                    handler(.eof)
                    readSource.cancel()
                    return
                }
                let e = errno
                if e == EINTR { continue }
                if e == EAGAIN || e == EWOULDBLOCK { return }
                handler(.error(e))
                readSource.cancel()
                return
            }
        }
        queue.async { [self] in
            guard !closeRequested, !readStarted else { return }
            readStarted = true
            readSource.resume()
        }
    }

    /// Suspends until the socket is writable; false when the channel was closed meanwhile.
    func waitWritable() async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            queue.async { [self] in
                if closeRequested {
                    continuation.resume(returning: false)
                    return
                }
                if keptWake {
                    keptWake = false
                    continuation.resume(returning: true)
                    return
                }
                writeWaiters.append(continuation)
                if writeSuspended {
                    writeSuspended = false
                    writeSource.resume()
                }
            }
        }
    }

    /// Resumes every ``waitWritable()`` caller with true (its caller learnt writability another
    /// way: the connect backstop's `poll`).
    /// A waiter that has not parked yet (its task had not run) finds the wake-up kept for it.
    func wakeWriteWaiters() {
        queue.async { [self] in
            let waiters = writeWaiters
            writeWaiters = []
            if waiters.isEmpty { keptWake = true }
            if !writeSuspended, !closeRequested {
                writeSuspended = true
                writeSource.suspend()
            }
            for waiter in waiters { waiter.resume(returning: true) }
        }
    }

    /// Writes all of `bytes` (stream) or one datagram to `destination`; throws the errno.
    func send(_ bytes: [UInt8], to destination: SocketAddress? = nil) async throws(SocketErrno) {
        var offset = 0
        while offset < bytes.count || (bytes.isEmpty && offset == 0) {
            let n: Int = bytes.withUnsafeBytes { raw in
                let base = raw.baseAddress.map { $0 + offset }
                if let destination {
                    return destination.withSockAddr {
                        sendto(fd, base, raw.count - offset, Int32(MSG_NOSIGNAL), $0, $1)
                    }
                }
                return Glibc.send(fd, base, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            if n >= 0 {
                if isDatagram || bytes.isEmpty { return }
                offset += n
                continue
            }
            let e = errno
            if e == EINTR { continue }
            if e == EAGAIN || e == EWOULDBLOCK {
                guard await waitWritable() else { throw SocketErrno(code: EBADF) }
                continue
            }
            throw SocketErrno(code: e)
        }
    }

    /// One non-blocking `sendto` of a whole datagram, without suspending; false when it did not
    /// go out (EAGAIN or an error: the caller falls back to ``send(_:to:)``, which reports it).
    func trySendDatagram(_ bytes: [UInt8], to destination: SocketAddress) -> Bool {
        let n: Int = bytes.withUnsafeBytes { raw in
            destination.withSockAddr { sendto(fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL), $0, $1) }
        }
        return n == bytes.count
    }

    /// Stops both sources; the descriptor is closed when their cancel handlers have run.
    func close() {
        queue.async { [self] in
            guard !closeRequested else { return }
            closeRequested = true
            let waiters = writeWaiters
            writeWaiters = []
            for waiter in waiters { waiter.resume(returning: false) }
            if !readStarted {
                readStarted = true
                readSource.resume()
            }
            readSource.cancel()
            writeSource.cancel()
            if writeSuspended {
                writeSuspended = false
                writeSource.resume()
            }
        }
    }

    private func closeIfDone() {
        guard readCancelled, writeCancelled, !fdClosed else { return }
        fdClosed = true
        Glibc.close(fd)
    }

    /// The locally bound address (getsockname).
    var localAddress: SocketAddress? { StreamSocket.localAddress(fd) }
}

/// An errno from a socket call, with its `strerror` text.
struct SocketErrno: Error, CustomStringConvertible {
    let code: Int32
    var description: String { String(cString: strerror(code)) }
}

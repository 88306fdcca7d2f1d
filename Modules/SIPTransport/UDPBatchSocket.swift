import CLinux
import Glibc

/// A UDP socket connected to one server, for a caller that runs its own loop on one thread
/// (load generation, D13): no queue, no task, no actor per datagram. It waits with `poll(2)`,
/// receives every queued datagram with `recvmmsg(2)` and sends a batch with `sendmmsg(2)`.
///
/// Connected, so the kernel delivers only the server's datagrams (the same filter as
/// ``UDPFlowConnection``). Not `Sendable`: one thread owns it from creation to ``close()``.
package final class UDPBatchSocket {
    public let local: SocketAddress
    public let remote: SocketAddress
    private let fd: Int32
    private let trace: SIPTrace?
    private let slots: Int
    private let slotSize = 65_536
    private let buffers: UnsafeMutableRawBufferPointer
    private let iovecs: UnsafeMutablePointer<iovec>
    private let headers: UnsafeMutablePointer<astra_mmsghdr>
    private var closed = false

    /// - Parameters:
    ///   - batch: datagrams received (and sent) per system call at most.
    ///   - trace: `--sip-trace`: every datagram sent and received.
    public init(connectedTo remote: SocketAddress, batch: Int = 64, trace: SIPTrace? = nil) throws(TransportError) {
        let fd: Int32
        do {
            fd = try Socket.make(family: remote.family, type: Int32(SOCK_DGRAM.rawValue))
        } catch {
            throw TransportError(.socketFailed, transport: .udp, peer: remote.description, "socket(): \(error)")
        }
        guard remote.withSockAddr({ Glibc.connect(fd, $0, $1) }) == 0 else {
            let e = errno
            Glibc.close(fd)
            throw TransportError(.socketFailed, transport: .udp, peer: remote.description,
                                 "connect(): \(SocketErrno(code: e))")
        }
        guard let local = StreamSocket.localAddress(fd) else {
            Glibc.close(fd)
            throw TransportError(.socketFailed, transport: .udp, peer: remote.description, "getsockname() failed")
        }
        // A burst of answers to a whole batch of requests must not overflow the receive queue.
        var size: Int32 = 4 << 20
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        self.fd = fd
        self.local = local
        self.remote = remote
        self.trace = trace
        slots = max(1, batch)
        buffers = .allocate(byteCount: slots * slotSize, alignment: 16)
        iovecs = .allocate(capacity: slots)
        headers = .allocate(capacity: slots)
    }

    deinit {
        close()
        buffers.deallocate()
        iovecs.deallocate()
        headers.deallocate()
    }

    public func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(fd)
    }

    /// The socket, for a caller that polls it together with other descriptors.
    public var descriptor: Int32 { fd }

    /// Waits until a datagram can be read, at most `timeout` (nil: no limit). False on timeout.
    @discardableResult
    public func waitReadable(timeout: Duration?) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let milliseconds: Int32
        if let timeout {
            let (seconds, attoseconds) = timeout.components
            // Round up so a timer is never polled for too early (poll has millisecond resolution).
            let ms = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
            milliseconds = Int32(clamping: max(0, ms))
        } else {
            milliseconds = -1
        }
        while true {
            let rc = poll(&entry, 1, milliseconds)
            if rc < 0 && errno == EINTR { continue }
            return rc > 0
        }
    }

    /// Hands every datagram queued now to `body`, in order, without waiting; returns how many.
    /// The bytes are only valid during the call. CRLF keep-alives are skipped (RFC 5626 §4.4.1).
    /// Throws when the socket reports an error instead (e.g. ECONNREFUSED: the server's ICMP
    /// port unreachable for something we sent — nothing listens there).
    @discardableResult
    public func receiveAll(_ body: (UnsafeRawBufferPointer) -> Void) throws(TransportError) -> Int {
        var total = 0
        while !closed {
            for index in 0..<slots {
                iovecs[index] = iovec(iov_base: buffers.baseAddress! + index * slotSize, iov_len: slotSize)
                headers[index] = astra_mmsghdr(
                    msg_hdr: msghdr(msg_name: nil, msg_namelen: 0, msg_iov: iovecs + index, msg_iovlen: 1,
                                    msg_control: nil, msg_controllen: 0, msg_flags: 0),
                    msg_len: 0)
            }
            let count = astra_recvmmsg(fd, headers, UInt32(slots), Int32(MSG_DONTWAIT))
            if count < 0 {
                let e = errno
                if e == EINTR { continue }
                if e == EAGAIN || e == EWOULDBLOCK { return total }
                throw TransportError(.connectFailed, transport: .udp, peer: remote.description,
                                     "recvmmsg: \(SocketErrno(code: e))")
            }
            for index in 0..<Int(count) {
                let bytes = UnsafeRawBufferPointer(start: buffers.baseAddress! + index * slotSize,
                                                   count: Int(headers[index].msg_len))
                if bytes.allSatisfy({ $0 == 13 || $0 == 10 }) { continue }
                if let trace { trace.record(.received, transport: .udp, local: local, remote: remote, message: Array(bytes)) }
                body(bytes)
            }
            total += Int(count)
            if Int(count) < slots { return total }
        }
        return total
    }

    /// Sends each message as one datagram, in order, in as few system calls as the batch size
    /// allows; waits for writability when the socket buffer is full. Throws on a socket error
    /// (e.g. the server's port is closed: ECONNREFUSED).
    public func send(_ messages: [[UInt8]]) throws(TransportError) {
        guard !closed else { throw TransportError(.closed, transport: .udp, peer: remote.description, "socket closed") }
        var next = 0
        while next < messages.count {
            let count = min(slots, messages.count - next)
            // Copied into the slots (the receive buffers: this thread is not receiving now).
            var tooLarge = false
            for index in 0..<count {
                let message = messages[next + index]
                guard message.count <= 65_507 else {
                    tooLarge = true
                    break
                }
                let slot = buffers.baseAddress! + index * slotSize
                if !message.isEmpty {
                    message.withUnsafeBytes { slot.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
                }
                iovecs[index] = iovec(iov_base: slot, iov_len: message.count)
                headers[index] = astra_mmsghdr(
                    msg_hdr: msghdr(msg_name: nil, msg_namelen: 0, msg_iov: iovecs + index, msg_iovlen: 1,
                                    msg_control: nil, msg_controllen: 0, msg_flags: 0),
                    msg_len: 0)
            }
            let sent = tooLarge ? -2 : astra_sendmmsg(fd, headers, UInt32(count), Int32(MSG_NOSIGNAL))
            if sent == -2 {
                throw TransportError(.messageTooLarge, transport: .udp, peer: remote.description,
                                     "a message does not fit a UDP datagram (RFC 3261 §18.1.1: use TCP)")
            }
            if sent < 0 {
                let e = errno
                if e == EINTR { continue }
                if e == EAGAIN || e == EWOULDBLOCK {
                    var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&entry, 1, 1000)
                    continue
                }
                throw TransportError(.sendFailed, transport: .udp, peer: remote.description,
                                     "sendmmsg: \(SocketErrno(code: e))")
            }
            if let trace {
                for message in messages[next..<next + Int(sent)] {
                    trace.record(.sent, transport: .udp, local: local, remote: remote, message: message)
                }
            }
            next += Int(sent)
        }
    }
}

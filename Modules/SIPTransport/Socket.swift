import CLinux
import Glibc

/// Creating and connecting non-blocking sockets (IPv4 and IPv6).
enum Socket {
    /// A non-blocking, close-on-exec socket of `type` for `family`.
    static func make(family: Int32, type: Int32) throws(SocketErrno) -> Int32 {
        let fd = socket(family, type | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SocketErrno(code: errno) }
        return fd
    }

    /// Opens a TCP connection to `address` within `timeout`; returns a channel not yet reading.
    static func connectStream(
        to address: SocketAddress, timeout: Duration, transport: TransportKind
    ) async throws(TransportError) -> SocketChannel {
        let peer = address.description
        let fd: Int32
        do {
            fd = try make(family: address.family, type: Int32(SOCK_STREAM.rawValue))
        } catch {
            throw TransportError(.socketFailed, transport: transport, peer: peer, "socket(): \(error)")
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        let rc = address.withSockAddr { Glibc.connect(fd, $0, $1) }
        let channel = SocketChannel(fd: fd, datagram: false)
        if rc != 0 {
            let e = errno
            guard e == EINPROGRESS || e == EINTR else {
                channel.close()
                throw TransportError(
                    .connectFailed, transport: transport, peer: peer, "connect(): \(SocketErrno(code: e))")
            }
            let writable = await withTaskGroup(of: Bool?.self) { group -> Bool in
                group.addTask { await channel.waitWritable() }
                // A backstop beside the write source: the kernel's own answer, asked every
                // `recheck`, so a wake-up the event source does not deliver would cost at most
                // that much, never the whole timeout; a connect timeout then always means the
                // kernel itself saw no answer to the SYN.
                group.addTask {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: Self.recheck)
                        if Task.isCancelled { return nil }
                        if Self.connectFinished(fd) { return true }
                    }
                    return nil
                }
                group.addTask {
                    try? await Task.sleep(for: timeout)
                    return nil
                }
                let first = await group.next() ?? nil
                group.cancelAll()
                if first == nil {
                    channel.close()  // resumes the write waiter with false
                } else {
                    channel.wakeWriteWaiters()  // the backstop won: the waiter must not hang the group
                }
                return first ?? false
            }
            guard writable else {
                throw TransportError(
                    .connectTimeout, transport: transport, peer: peer,
                    "no connection within \(timeout) (no answer to the TCP handshake)")
            }
            var soError: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &length)
            if soError != 0 {
                channel.close()
                throw TransportError(
                    .connectFailed, transport: transport, peer: peer, "connect(): \(SocketErrno(code: soError))")
            }
        }
        return channel
    }

    /// How often a pending connect asks the kernel whether it finished (the backstop beside the
    /// write source in ``connectStream(to:timeout:transport:)``).
    static let recheck: Duration = .milliseconds(250)

    /// True when a non-blocking connect on `fd` has finished, well or not (`poll` reports it
    /// writable or in error; RFC-free: connect(2)'s EINPROGRESS contract).
    static func connectFinished(_ fd: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        return poll(&entry, 1, 0) == 1 && entry.revents & Int16(POLLOUT | POLLERR | POLLHUP) != 0
    }

    /// A UDP socket bound to `local` (port 0 = any), ready for many peers.
    static func bindDatagram(_ local: SocketAddress) throws(TransportError) -> SocketChannel {
        let fd: Int32
        do {
            fd = try make(family: local.family, type: Int32(SOCK_DGRAM.rawValue))
        } catch {
            throw TransportError(.socketFailed, transport: .udp, peer: local.description, "socket(): \(error)")
        }
        let rc = local.withSockAddr { bind(fd, $0, $1) }
        if rc != 0 {
            let e = errno
            Glibc.close(fd)
            throw TransportError(
                .socketFailed, transport: .udp, peer: local.description, "bind(): \(SocketErrno(code: e))")
        }
        return SocketChannel(fd: fd, datagram: true)
    }
}

extension Socket {
    /// The local IP the kernel would use to reach `remote` (a connected UDP socket's
    /// getsockname; nothing is sent). Used for the Via sent-by of a UDP flow.
    static func sourceAddress(toward remote: SocketAddress) -> SocketAddress? {
        guard let fd = try? make(family: remote.family, type: Int32(SOCK_DGRAM.rawValue)) else { return nil }
        defer { Glibc.close(fd) }
        guard remote.withSockAddr({ Glibc.connect(fd, $0, $1) }) == 0 else { return nil }
        guard let address = StreamSocket.localAddress(fd) else { return nil }
        return SocketAddress(ip: address.ip, port: 0)
    }
}

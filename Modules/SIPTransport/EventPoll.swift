import CLinux
import Glibc

/// A level-triggered `epoll(7)` set for a caller that runs its own loop on one thread (the
/// connection-oriented load engine holds thousands of connections on one loop; `poll(2)`
/// would scan them all on every turn). Each descriptor carries a caller's token (a line number).
/// Not `Sendable`: one thread owns it.
package final class EventPoll {
    public struct Ready {
        public var token: UInt64
        public var readable: Bool
        public var writable: Bool
        /// `EPOLLHUP` or `EPOLLERR`: read to learn why (EOF or the error).
        public var hangup: Bool
    }

    private let fd: Int32
    private var events: [epoll_event]

    /// - Parameter capacity: readiness reports taken per ``wait(timeout:)`` at most.
    public init(capacity: Int = 512) throws(TransportError) {
        fd = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard fd >= 0 else { throw TransportError(.socketFailed, "epoll_create1(): \(SocketErrno(code: errno))") }
        events = Array(repeating: epoll_event(), count: max(1, capacity))
    }

    deinit { Glibc.close(fd) }

    /// Watches `descriptor` for reading (always) and writing (when `writable`).
    public func add(_ descriptor: Int32, token: UInt64, writable: Bool) -> Bool {
        control(EPOLL_CTL_ADD, descriptor, token: token, writable: writable)
    }

    /// Changes whether `descriptor` is watched for writing.
    @discardableResult
    public func modify(_ descriptor: Int32, token: UInt64, writable: Bool) -> Bool {
        control(EPOLL_CTL_MOD, descriptor, token: token, writable: writable)
    }

    /// Stops watching `descriptor` (closing it does that too).
    public func remove(_ descriptor: Int32) {
        var event = epoll_event()
        _ = epoll_ctl(fd, EPOLL_CTL_DEL, descriptor, &event)
    }

    /// Waits until a descriptor is ready or `timeout` passes; returns what is ready.
    public func wait(timeout: Duration) -> [Ready] {
        let milliseconds = Int32(clamping: max(0, (timeout.components.seconds * 1000)
            + Int64((timeout.components.attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)))
        let count = events.withUnsafeMutableBufferPointer {
            epoll_wait(fd, $0.baseAddress, Int32($0.count), milliseconds)
        }
        guard count > 0 else { return [] }
        var ready: [Ready] = []
        ready.reserveCapacity(Int(count))
        for event in events[0..<Int(count)] {
            let flags = event.events
            ready.append(Ready(
                token: event.data.u64,
                readable: flags & EPOLLIN.rawValue != 0,
                writable: flags & EPOLLOUT.rawValue != 0,
                hangup: flags & (EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0))
        }
        return ready
    }

    private func control(_ op: Int32, _ descriptor: Int32, token: UInt64, writable: Bool) -> Bool {
        var event = epoll_event()
        event.events = EPOLLIN.rawValue | EPOLLRDHUP.rawValue | (writable ? EPOLLOUT.rawValue : 0)
        event.data.u64 = token
        return epoll_ctl(fd, op, descriptor, &event) == 0
    }
}

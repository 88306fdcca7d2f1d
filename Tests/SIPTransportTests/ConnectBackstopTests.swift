import Foundation
import Glibc
import Testing

@testable import SIPTransport

/// The connect backstop: a pending connect asks the kernel itself every ``Socket/recheck``, so a
/// writable event the Dispatch source does not deliver never costs the whole connect timeout.
@Suite struct ConnectBackstopTests {
    /// A pipe whose write end is full: never writable until someone reads.
    static func fullPipe() -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        let chunk = [UInt8](repeating: 0x55, count: 4096)
        while chunk.withUnsafeBytes({ write(fds[1], $0.baseAddress, $0.count) }) > 0 {}
        #expect(errno == EAGAIN)
        return (fds[0], fds[1])
    }

    /// A waiter parked on a descriptor that never becomes writable is released, with true, by
    /// ``SocketChannel/wakeWriteWaiters()``: the backstop's win must not leave the task group
    /// waiting on it forever.
    @Test func aParkedWriteWaiterIsReleasedByTheBackstop() async throws {
        let (readEnd, writeEnd) = Self.fullPipe()
        defer { close(readEnd) }
        let channel = SocketChannel(fd: writeEnd, datagram: false)
        defer { channel.close() }
        let waiter = Task { await channel.waitWritable() }
        // Positive condition: the waiter is parked (the descriptor stays unwritable).
        #expect(!Socket.connectFinished(writeEnd))
        channel.wakeWriteWaiters()
        #expect(await waiter.value)
    }

    /// The kernel's answer for a connect to a listening loopback socket: finished.
    @Test func aCompletedLoopbackConnectIsSeenFinished() async throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) == 0 && getsockname(listener, $0, &length) == 0 }
        }
        #expect(bound && listen(listener, 8) == 0)
        let remote = try #require(SocketAddress(ip: "127.0.0.1", port: UInt16(bigEndian: address.sin_port)))
        let channel = try await Socket.connectStream(to: remote, timeout: .seconds(30), transport: .tcp)
        defer { channel.close() }
        #expect(Socket.connectFinished(channel.fd))
    }
}

import AstraTestSupport
import Foundation
import Glibc
import HTTPLite
import Media
import Testing

@testable import SIPTransport

/// Every descriptor the modules create is close-on-exec from the call that creates it
/// (decisions D49): a library user (an app's engine, a gateway) may fork and exec on its own,
/// and must not hand its children our sockets. A representative set, each found by what it is
/// (the port it is bound to, the descriptor an epoll set watches) among this process's open
/// descriptors, since the modules keep their descriptors to themselves.
@Suite struct CloseOnExecTests {
    static func isCloseOnExec(_ fd: Int32) -> Bool {
        let flags = fcntl(fd, F_GETFD)
        return flags >= 0 && flags & FD_CLOEXEC != 0
    }

    /// This process's open descriptors.
    static func openDescriptors() -> [Int32] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).compactMap { Int32($0) }
    }

    /// The open IPv4 sockets of `type` whose local port is `port` (a listener and the
    /// connections it accepted share it).
    static func sockets(boundTo port: UInt16, type: Int32) -> [Int32] {
        openDescriptors().filter { fd in
            var kind: Int32 = 0
            var kindLength = socklen_t(MemoryLayout<Int32>.size)
            var address = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            guard getsockopt(fd, SOL_SOCKET, SO_TYPE, &kind, &kindLength) == 0, kind == type else { return false }
            let rc = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            return rc == 0 && Int32(address.sin_family) == AF_INET && UInt16(bigEndian: address.sin_port) == port
        }
    }

    /// The epoll sets that watch `watched` (their /proc fdinfo lists it as a `tfd:` line).
    static func epollSets(watching watched: Int32) -> [Int32] {
        openDescriptors().filter { fd in
            var buffer = [CChar](repeating: 0, count: 64)
            let n = readlink("/proc/self/fd/\(fd)", &buffer, buffer.count - 1)
            guard n > 0,
                String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) == "anon_inode:[eventpoll]",
                let info = try? String(contentsOfFile: "/proc/self/fdinfo/\(fd)", encoding: .utf8)
            else { return false }
            return info.split(separator: "\n").contains { line in
                let words = line.split(separator: " ")
                return words.count >= 2 && words[0] == "tfd:" && words[1] == "\(watched)"
            }
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func theModulesDescriptorsAreCloseOnExec() async throws {
        // SIP over UDP: the transport's bound socket.
        let udp = try UDPTransport(local: SocketAddress(ip: "127.0.0.1", port: 0)!, log: .discard)
        let udpSockets = Self.sockets(boundTo: udp.local.port, type: Int32(SOCK_DGRAM.rawValue))
        // HTTPLite's listener (the gateway's HTTP API, APNs device port, HTTP/2 server), a
        // connection it accepted, and SIPTransport's stream socket (the load engine's) as the client.
        let listener = try TCPListener()
        let client = try StreamSocket.open(to: SocketAddress(ip: "127.0.0.1", port: listener.port)!).fd
        defer { close(client) }
        var connections = listener.connections.makeAsyncIterator()
        let accepted = try #require(await connections.next(), "the listener accepted nothing")
        let tcpSockets = Self.sockets(boundTo: listener.port, type: Int32(SOCK_STREAM.rawValue))
        // The load engine's epoll set, found by the client socket it watches.
        let poll = try EventPoll(capacity: 4)
        #expect(poll.add(client, token: 1, writable: false))
        let epollSets = Self.epollSets(watching: client)
        // Media's RTP socket.
        let rtp = try UDPSocket(bindHost: "127.0.0.1", port: 0)

        #expect(udpSockets.count == 1, "the UDP transport's socket")
        #expect(tcpSockets.count == 2, "the listener and the accepted connection: \(tcpSockets)")
        #expect(epollSets.count == 1, "the epoll set")
        let all =
            udpSockets.map { ("UDP transport", $0) } + tcpSockets.map { ("TCP listener or accepted", $0) }
            + [("stream socket", client), ("RTP socket", rtp.fd)] + epollSets.map { ("epoll set", $0) }
        withExtendedLifetime((poll, rtp)) {  // their deinits close the descriptors
            for (what, fd) in all { #expect(Self.isCloseOnExec(fd), "\(what) (fd \(fd)) is not close-on-exec") }
        }
        accepted.close()
        listener.close()
        await udp.close()
    }
}

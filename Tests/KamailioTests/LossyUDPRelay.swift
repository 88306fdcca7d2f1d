import Foundation
import Synchronization

/// A UDP relay on 127.0.0.1 that drops a share of the datagrams it forwards: the in-process
/// "lossy link" for the packet-loss call test (no `tc netem` here: the kernel has no sch_netem).
/// Datagrams from `target` go back to the last other sender; everything else goes to `target`.
/// `rewrite` (optional) may change each forwarded datagram: `toTarget` tells the direction
/// (the man in the middle of the forged-fingerprint test).
final class LossyUDPRelay: Sendable {
    let port: UInt16
    private let fd: Int32
    private let shared = Shared()

    private final class Shared: Sendable {
        let stopped = Atomic<Bool>(false)
        let counters = Mutex<(forwarded: Int, dropped: Int)>((0, 0))
    }

    init(
        target: UInt16, loss: Double, seed: UInt64,
        rewrite: (@Sendable (_ datagram: [UInt8], _ toTarget: Bool) -> [UInt8])? = nil
    ) throws {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        self.fd = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard fd >= 0, bound == 0 else { throw ToolProcessError(message: "relay bind failed") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let shared = self.shared
        Thread.detachNewThread {
            var state = seed | 1
            var client: sockaddr_in?
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while !shared.stopped.load(ordering: .relaxed) {
                var from = sockaddr_in()
                var fromLength = socklen_t(MemoryLayout<sockaddr_in>.size)
                let n = withUnsafeMutablePointer(to: &from) { pointer in
                    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        recvfrom(fd, &buffer, buffer.count, 0, $0, &fromLength)
                    }
                }
                guard n > 0 else { continue }
                var destination: sockaddr_in
                if UInt16(bigEndian: from.sin_port) == target {
                    guard let client else { continue }
                    destination = client
                } else {
                    client = from
                    destination = sockaddr_in()
                    destination.sin_family = sa_family_t(AF_INET)
                    destination.sin_addr.s_addr = inet_addr("127.0.0.1")
                    destination.sin_port = target.bigEndian
                }
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407  // PCG-style LCG
                if Double(state >> 11) / Double(1 << 53) < loss {
                    shared.counters.withLock { $0.dropped += 1 }
                    continue
                }
                shared.counters.withLock { $0.forwarded += 1 }
                let toTarget = UInt16(bigEndian: destination.sin_port) == target
                let datagram = rewrite.map { $0(Array(buffer[0..<n]), toTarget) } ?? Array(buffer[0..<n])
                _ = withUnsafePointer(to: &destination) { pointer in
                    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        sendto(fd, datagram, datagram.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
            }
            close(fd)
        }
    }

    var forwarded: Int { shared.counters.withLock { $0.forwarded } }
    var dropped: Int { shared.counters.withLock { $0.dropped } }
    func stop() { shared.stopped.store(true, ordering: .relaxed) }
}

import Foundation
import Glibc
import Synchronization

/// An independent RTCP end for the tests (RFC 3550 §6, written from the RFC, not from our
/// Media module): bound to a peer's RTCP port, it answers every Sender Report with a Receiver
/// Report whose block carries LSR/DLSR for it (§6.4.1), so the sender can compute the round
/// trip, and records where each report came from.
final class RTCPTestPeer: @unchecked Sendable {
    let port: UInt16
    private let fd: Int32
    private let state = Mutex<(reports: Int, sources: Set<String>, answered: Int, running: Bool)>(
        (0, [], 0, true))
    private let done = DispatchSemaphore(value: 0)

    init(port: UInt16) throws {
        self.port = port
        fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        var tv = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        Thread.detachNewThread { [self] in serve() }
    }

    /// Reports received / their sources (`ip:port`) / Receiver Reports sent back.
    var reports: Int { state.withLock { $0.reports } }
    var sources: Set<String> { state.withLock { $0.sources } }
    var answered: Int { state.withLock { $0.answered } }

    func stop() {
        state.withLock { $0.running = false }
        _ = done.wait(timeout: .now() + 5)
        close(fd)
    }

    private func serve() {
        defer { done.signal() }
        var buffer = [UInt8](repeating: 0, count: 2048)
        while state.withLock({ $0.running }) {
            var from = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let n = withUnsafeMutablePointer(to: &from) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(fd, &buffer, buffer.count, 0, $0, &length) }
            }
            guard n >= 8 else { continue }
            let packet = Array(buffer[0..<n])
            // §6.4.1: V=2, PT=200 (SR) first in a compound packet.
            guard packet[0] >> 6 == 2, packet[1] == 200 || packet[1] == 201 else { continue }
            let arrival = Self.ntpNow()
            let source = "\(String(cString: inet_ntoa(from.sin_addr))):\(UInt16(bigEndian: from.sin_port))"
            state.withLock {
                $0.reports += 1
                $0.sources.insert(source)
            }
            guard packet[1] == 200, n >= 28 else { continue }
            let senderSSRC = Array(packet[4..<8])
            let lsr = Array(packet[10..<14])  // the middle 32 bits of the SR's NTP timestamp
            var reply = receiverReport(about: senderSSRC, lsr: lsr, dlsr: Self.compact(Self.ntpNow() &- arrival))
            _ = withUnsafePointer(to: &from) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, &reply, reply.count, 0, $0, length) }
            }
            state.withLock { $0.answered += 1 }
        }
    }

    /// RR (PT 201, one report block, §6.4.2) + SDES CNAME (PT 202, §6.5): a valid compound packet.
    private func receiverReport(about ssrc: [UInt8], lsr: [UInt8], dlsr: UInt32) -> [UInt8] {
        let ourSSRC: [UInt8] = [0x52, 0x54, 0x43, 0x50]
        var rr: [UInt8] = [0x81, 201, 0x00, 0x07] + ourSSRC + ssrc
        rr += [0, 0, 0, 0]  // fraction lost, cumulative lost
        rr += [0, 0, 0, 0]  // extended highest sequence number
        rr += [0, 0, 0, 0]  // interarrival jitter
        rr += lsr + [UInt8(dlsr >> 24), UInt8(dlsr >> 16 & 0xFF), UInt8(dlsr >> 8 & 0xFF), UInt8(dlsr & 0xFF)]
        let cname = Array("rtcp-test-peer".utf8)
        var chunk = ourSSRC + [1, UInt8(cname.count)] + cname + [0]
        while chunk.count % 4 != 0 { chunk.append(0) }
        let sdes: [UInt8] = [0x81, 202, 0x00, UInt8(chunk.count / 4)] + chunk
        return rr + sdes
    }

    /// NTP time as 64-bit fixed point (seconds since 1900 in the high half).
    private static func ntpNow() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        let seconds = UInt64(ts.tv_sec) + 2_208_988_800
        let fraction = (UInt64(ts.tv_nsec) << 32) / 1_000_000_000
        return seconds << 32 | fraction
    }

    /// A duration in NTP fixed point as the 32-bit 1/65536 s units of DLSR.
    private static func compact(_ duration: UInt64) -> UInt32 { UInt32(truncatingIfNeeded: duration >> 16) }
}

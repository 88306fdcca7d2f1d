import Glibc
import SIPTransport

/// A UDP socket bound to 127.0.0.1 on a port the kernel picks: the test's HEP collector.
final class UDPBatchSocketListener {
    let fd: Int32
    let address: SocketAddress

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        self.fd = fd
        var sin = sockaddr_in()
        sin.sin_family = sa_family_t(AF_INET)
        sin.sin_addr.s_addr = inet_addr("127.0.0.1")
        sin.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &sin) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard fd >= 0, bound, let address = SocketAddress(ip: "127.0.0.1", port: UInt16(bigEndian: sin.sin_port)) else {
            throw SocketFailure()
        }
        self.address = address
    }

    struct SocketFailure: Error {}

    /// Up to `count` datagrams, waiting at most `seconds` in all.
    func receive(count: Int, within seconds: Int) -> [[UInt8]] {
        var out: [[UInt8]] = []
        var buffer = [UInt8](repeating: 0, count: 70_000)
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while out.count < count, poll(&entry, 1, Int32(seconds * 1000)) > 0 {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            out.append(Array(buffer[0..<n]))
        }
        return out
    }

    func close() { Glibc.close(fd) }
}

import AstraTestSupport
import Glibc
import SIPTransport

/// A UDP socket bound to 127.0.0.1 on a port the kernel picks: the test's HEP collector.
final class UDPBatchSocketListener {
    let fd: Int32
    let address: SocketAddress

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        self.fd = fd
        guard fd >= 0, let port = TestPorts.bindAnyLoopbackPort(fd), let address = SocketAddress(ip: "127.0.0.1", port: port) else {
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

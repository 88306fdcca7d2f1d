import Foundation
import Glibc

/// sngrep as a HEP collector (`sngrep -N -q -L udp:127.0.0.1:PORT -O FILE`): it listens for
/// HEP/EEP packets and writes what it decoded to a pcap file, which ``Tshark`` then reads. The
/// independent peer for the tools' `--hep` export (Debian's `sngrep`, built with EEP/HEP).
public final class SngrepCollector: @unchecked Sendable {
    public let port: UInt16
    public let pcapPath: String
    private let child: ChildProcess.Running

    /// Starts sngrep on a free port below the ephemeral range and waits (up to 10 s) until it
    /// has bound it; `seconds` bounds its whole life (it is interrupted then at the latest).
    public init(seconds: Int = 60) async throws {
        var lastError = "sngrep never bound a port"
        for _ in 0..<5 {
            let port = TestPorts.random()
            let path = NSTemporaryDirectory() + "astra-sngrep-\(port)-\(UInt32.random(in: 0...UInt32.max)).pcap"
            let arguments = ["-s", "INT", "-k", "3", String(seconds), "sngrep", "-N", "-q", "-L", "udp:127.0.0.1:\(port)",
                             "-O", path]
            let child = try ChildProcess.start(command: "timeout", arguments)
            if await Self.waitBound(port) {
                self.port = port
                self.pcapPath = path
                self.child = child
                return
            }
            child.signal(SIGINT)
            if let result = try? await child.result() { lastError = "sngrep exited \(result.status): \(result.stderr)" }
        }
        throw Tshark.Failure(description: lastError)
    }

    /// Stops sngrep (SIGINT to `timeout`, which passes it on; sngrep flushes the pcap file)
    /// and returns the file's path.
    public func stop() async throws -> String {
        child.signal(SIGINT)
        _ = try await child.result()
        return pcapPath
    }

    /// Whether UDP `port` on 127.0.0.1 is taken (binding it fails with EADDRINUSE).
    static func isBound(_ port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd) }
        var sin = sockaddr_in()
        sin.sin_family = sa_family_t(AF_INET)
        sin.sin_addr.s_addr = inet_addr("127.0.0.1")
        sin.sin_port = port.bigEndian
        let rc = withUnsafePointer(to: &sin) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return rc != 0 && errno == EADDRINUSE
    }

    private static func waitBound(_ port: UInt16) async -> Bool {
        for _ in 0..<200 {
            if isBound(port) { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }
}

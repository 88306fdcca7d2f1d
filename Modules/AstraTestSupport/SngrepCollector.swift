import Foundation
import Glibc

/// sngrep as a HEP collector (`sngrep -N -q -L udp:127.0.0.1:PORT -O FILE`): it listens for
/// HEP/EEP packets and writes what it decoded to a pcap file, which ``Tshark`` then reads. The
/// independent peer for the tools' `--hep` export (Debian's `sngrep`, built with EEP/HEP).
public final class SngrepCollector: @unchecked Sendable {
    public let port: UInt16
    public let pcapPath: String
    private let child: ChildProcess.Running

    /// Starts sngrep on a free port below the ephemeral range and waits (up to 10 s) until its
    /// socket shows in /proc/net/udp (``TestPorts/udpBound(_:)``; a probe bind would race its own); `seconds` bounds its whole life (it is interrupted then at the latest).
    public init(seconds: Int = 60) async throws {
        var lastError = "sngrep never bound a port"
        for _ in 0..<5 {
            let port = TestPorts.freeUDP()
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

    /// Stops sngrep once it has read every HEP packet sent to it (its socket's receive queue is
    /// empty, bounded by 10 s), then SIGINT to `timeout`, which passes it on; sngrep flushes the
    /// pcap file. Returns the file's path.
    public func stop() async throws -> String {
        _ = await eventually(timeout: .seconds(10)) { TestPorts.udpReceiveQueue(port) ?? 0 == 0 }
        child.signal(SIGINT)
        _ = try await child.result()
        return pcapPath
    }

    private static func waitBound(_ port: UInt16) async -> Bool {
        await eventually(timeout: .seconds(10), every: .milliseconds(50)) { TestPorts.udpBound(port) }
    }
}

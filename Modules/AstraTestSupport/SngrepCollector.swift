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
    public init(seconds: Int = 180) async throws {
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

    /// Stops sngrep once its pcap file holds what the test needs, then returns the file's path.
    ///
    /// `holds` is asked about the SIP flow written so far (``PcapReader/sipFlow(atPath:)``: the
    /// method or status code of each message, in file order) until it answers yes or `timeout`
    /// passes; then SIGINT to `timeout`, which passes it on. sngrep writes and flushes each
    /// packet as it decodes it, so the file read while it runs is what it has decoded. Having
    /// *read* every datagram (an empty socket queue) is not that: under load sngrep may have
    /// taken datagrams off the socket and not yet decoded or written them when it is stopped,
    /// and SIGINT ends it there. When the bound passes the caller's checks say what is missing.
    public func stop(once holds: ([String]) -> Bool, timeout: Duration = .seconds(60)) async throws -> String {
        _ = await eventually(timeout: timeout, every: .milliseconds(50)) { holds(PcapReader.sipFlow(atPath: pcapPath)) }
        child.signal(SIGINT)
        _ = try await child.result()
        return pcapPath
    }

    private static func waitBound(_ port: UInt16) async -> Bool {
        await eventually(timeout: .seconds(10), every: .milliseconds(50)) { TestPorts.udpBound(port) }
    }
}

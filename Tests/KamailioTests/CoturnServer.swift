import Foundation
import Media

/// Debian's coturn (`turnserver`) on 127.0.0.1 (scripts/debian-packages.txt): an independent
/// STUN implementation for the `--stun` tests (`--stun-only`), or a TURN server (RFC 8656) with
/// one static long-term user for the `--turn` tests. Started on a free port, ready once it
/// answers a Binding request, stopped by its PID.
final class CoturnServer: Sendable {
    let process: ToolProcess
    let port: UInt16
    var hostPort: String { "127.0.0.1:\(port)" }
    var address: UDPSocket.Address { UDPSocket.Address(host: "127.0.0.1", port: port) }
    /// The relayed ports coturn hands out (TURN mode).
    var relayPorts: ClosedRange<UInt16> { Self.relayPorts(port) }

    static func relayPorts(_ port: UInt16) -> ClosedRange<UInt16> {
        let low = 20000 + (port % 400) * 100
        return low...(low + 99)
    }

    static let binary = "/usr/bin/turnserver"

    /// A TURN user: `--lt-cred-mech --user USER:PASSWORD --realm REALM`.
    struct TURNUser {
        var user = "u"
        var password = "p"
        var realm = "astra"
    }

    /// STUN only, or TURN with `turn`: relayed addresses on 127.0.0.1 and loopback peers
    /// allowed explicitly (`--allow-loopback-peers`: coturn refuses 127.x peers by default).
    static func start(turn: TURNUser? = nil) async throws -> CoturnServer {
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw ToolProcessError(message: "\(binary) is missing: install coturn (scripts/install-deps.sh)")
        }
        let port = try UDPSocket(bindHost: "127.0.0.1").localAddress.port  // free now, bound by coturn next
        // UDP only (`--no-tcp`): the port is known free for UDP, not for TCP, and coturn retries a
        // TCP listener bind that fails (a client connection's ephemeral port) for ever without
        // ever answering on UDP — seen in a fresh-clone CI run (two tests, 5 s each).
        var arguments = [
            "-n", "--listening-ip", "127.0.0.1", "--listening-port", "\(port)", "--no-tls", "--no-dtls", "--no-tcp",
            "--no-cli", "--log-file", "stdout", "--simple-log",
        ]
        if let turn {
            // A relay port range of its own per server (tests run in parallel).
            let ports = relayPorts(port)
            arguments += [
                "--lt-cred-mech", "--user", "\(turn.user):\(turn.password)", "--realm", turn.realm,
                "--relay-ip", "127.0.0.1", "--allow-loopback-peers", "--min-port", "\(ports.lowerBound)",
                "--max-port", "\(ports.upperBound)", "--no-tcp-relay",
            ]
        } else {
            arguments.append("--stun-only")
        }
        let process = try ToolProcess(binary, arguments)
        let server = CoturnServer(process: process, port: port)
        guard await server.answers(within: .seconds(5)) else {
            server.stop()
            throw ToolProcessError(message: "coturn did not answer on \(server.hostPort): \(process.stdout)")
        }
        return server
    }

    private init(process: ToolProcess, port: UInt16) {
        self.process = process
        self.port = port
    }

    /// Sends Binding requests until one is answered (polls: the server is starting).
    func answers(within timeout: Duration) async -> Bool {
        guard let socket = try? UDPSocket(bindHost: "127.0.0.1") else { return false }
        let server = UDPSocket.Address(host: "127.0.0.1", port: port)
        return await process.waitFor(timeout) {
            let id = (0..<12).map { _ in UInt8.random(in: 0...255) }
            socket.send(STUNMessage(.request, transactionID: id).encoded(fingerprint: true), to: server)
            usleep(20_000)  // poll interval of a bounded wait
            var buffer = [UInt8](repeating: 0, count: 1500)
            guard let (n, _) = buffer.withUnsafeMutableBytes({ socket.receive(into: $0) }),
                let response = try? STUNMessage(parsing: Array(buffer[0..<n]))
            else { return false }
            return response.messageClass == .successResponse && response.transactionID == id
        }
    }

    func stop() {
        process.signal(SIGTERM)
        Task { [process] in _ = await process.exitStatus(within: .seconds(3)) }
    }
}

import Foundation
import Glibc
import Testing

@testable import SIPTransport

/// Runs a program (posix_spawn, output to /dev/null); returns its pid, or waits when `wait`.
@discardableResult
func spawn(_ argv: [String], wait: Bool) -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    var pid: pid_t = 0
    let cArgs = argv.map { strdup($0) } + [nil]
    defer { for arg in cArgs { free(arg) } }
    guard posix_spawnp(&pid, argv[0], &actions, nil, cArgs, environ) == 0 else { return -1 }
    if wait {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }
    return pid
}

@Suite("TLS 1.2 or newer only")
struct TLSVersionTests {
    @Test("A TLS 1.1-only server is refused by the handshake")
    func refusesTLS11() async throws {
        let dir = NSTemporaryDirectory() + "astra-tls11-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        spawn(
            [
                "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", dir + "/k.pem", "-out", dir + "/c.pem", "-subj", "/CN=localhost", "-days", "1",
                "-addext", "subjectAltName=IP:127.0.0.1",
            ], wait: true)
        let port = UInt16.random(in: 30_000...60_000)
        let server = spawn(
            [
                "openssl", "s_server", "-accept", "127.0.0.1:\(port)", "-cert", dir + "/c.pem", "-key", dir + "/k.pem",
                "-tls1_1", "-cipher", "DEFAULT@SECLEVEL=0", "-quiet",
            ], wait: false)
        #expect(server > 0)
        defer {
            kill(server, SIGKILL)
            var status: Int32 = 0
            waitpid(server, &status, 0)
        }
        var options = ConnectionOptions()
        options.tls = TLSOptions(caFile: dir + "/c.pem")
        options.log = .discard
        options.keepAlive = nil
        var outcome: TransportError?
        for _ in 0..<100 {  // until s_server listens (real IO)
            do {
                let connection = try await StreamConnection.open(
                    host: "127.0.0.1", port: port, transport: .tls, options: options)
                await connection.close()
                Issue.record("TLS 1.1 server accepted")
                return
            } catch let error as TransportError where error.code == .connectFailed {
                try await Task.sleep(for: .milliseconds(50))
            } catch let error as TransportError {
                outcome = error
                break
            }
        }
        #expect(outcome?.code == .tlsHandshakeFailed)
        #expect(outcome?.detail.contains("protocol") == true, "\(String(describing: outcome))")
    }
}

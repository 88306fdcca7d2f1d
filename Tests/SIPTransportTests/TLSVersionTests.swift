import AstraTestSupport
import Foundation
import Glibc
import Testing
import ToolSupport

@testable import SIPTransport

/// Runs a program found on PATH through ``ProcessSpawn`` (the one launcher: empty signal mask,
/// no descriptor of ours but the three streams; stdin from the descriptor `stdin` or /dev/null,
/// stdout appended to the file `stdout` or /dev/null, stderr to /dev/null); returns its pid, or
/// waits when `wait`. -1 when it cannot start.
@discardableResult
func spawn(_ argv: [String], wait: Bool, stdin: Int32? = nil, stdout: String = "/dev/null") -> pid_t {
    guard
        let pid = try? ProcessSpawn.spawn(
            ["/usr/bin/env"] + argv, environment: ProcessInfo.processInfo.environment,
            stdin: stdin.map { .descriptor($0) } ?? .null, stdout: .file(stdout, truncate: false), stderr: .null)
    else { return -1 }
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
        let certificate = try TestCertificate.make()
        defer { certificate.remove() }
        let dir = certificate.directory
        // Port 0: the kernel picks a free port and s_server prints it ("ACCEPT 127.0.0.1:PORT")
        // once it listens — no guessed port that may be taken, no connect-and-retry loop. Its
        // stdin is a pipe kept open: without `-quiet` (which hides that line) an EOF on stdin
        // ends every connection.
        let log = dir + "/s_server.out"
        var input: [Int32] = [-1, -1]
        #expect(pipe(&input) == 0)
        let server = spawn(
            [
                "openssl", "s_server", "-accept", "127.0.0.1:0", "-cert", certificate.certFile,
                "-key", certificate.keyFile,
                "-tls1_1", "-cipher", "DEFAULT@SECLEVEL=0",
            ], wait: false, stdin: input[0], stdout: log)
        close(input[0])
        #expect(server > 0)
        defer {
            close(input[1])
            kill(server, SIGKILL)
            var status: Int32 = 0
            waitpid(server, &status, 0)
        }
        let port = try #require(
            await eventuallySome(timeout: .seconds(30), every: .milliseconds(20)) { Self.listeningPort(log) },
            "openssl s_server did not report its port")
        var options = ConnectionOptions()
        options.tls = TLSOptions(caFile: certificate.certFile)
        options.log = .discard
        options.keepAlive = nil
        var outcome: TransportError?
        do throws(TransportError) {
            let connection = try await StreamConnection.open(
                host: "127.0.0.1", port: port, transport: .tls, options: options)
            await connection.close()
        } catch {
            outcome = error
        }
        #expect(outcome?.code == .tlsHandshakeFailed, "TLS 1.1 server accepted")
        #expect(outcome?.detail.contains("protocol") == true, "\(String(describing: outcome))")
    }

    /// The port of s_server's `ACCEPT host:port` line, once it is there.
    static func listeningPort(_ path: String) -> UInt16? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("ACCEPT ") }),
              let colon = line.lastIndex(of: ":")
        else { return nil }
        return UInt16(line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
    }
}

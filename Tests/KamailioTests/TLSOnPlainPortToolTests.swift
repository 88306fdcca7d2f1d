import AstraTestSupport
import Foundation
import Glibc
import Testing

extension KamailioPeer {
    /// `--transport wss` (or tls) pointed at a plain port is a fast, named failure — not the
    /// whole `--timeout` and "no answer": a server answering in plain text is said at once, and
    /// one that says nothing after our ClientHello (Kamailio's plain WS port reads it as HTTP and
    /// waits for the rest) fails after the 3 s TLS answer bound. Exit 3, as network failures.
    @Suite struct TLSOnPlainPortToolTests {
        /// A TCP port on 127.0.0.1 answering whatever it reads with an HTTP 400 and closing.
        final class HTTP400Port: @unchecked Sendable {
            let fd: Int32
            let port: UInt16
            private var thread: Thread?

            init() throws {
                let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                guard let bound = TestPorts.bindAnyLoopbackPort(fd), listen(fd, 8) == 0 else {
                    close(fd)
                    throw POSIXError(.EADDRINUSE)
                }
                self.fd = fd
                port = bound
                let listener = fd
                let thread = Thread {
                    while true {
                        let client = accept(listener, nil, nil)
                        guard client >= 0 else { return }  // the listener was shut down
                        var buffer = [UInt8](repeating: 0, count: 4096)
                        _ = read(client, &buffer, buffer.count)
                        let answer = Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
                        _ = write(client, answer, answer.count)
                        close(client)
                    }
                }
                self.thread = thread
                thread.start()
            }

            func stop() {
                shutdown(fd, Int32(SHUT_RDWR))
                while thread?.isFinished == false { usleep(10_000) }
                close(fd)
            }
        }

        func register(_ transport: String, port: UInt16) async throws -> (Int32?, String, String, Duration) {
            let clock = ContinuousClock()
            let start = clock.now
            let (status, out, err) = try await ToolProcess.run(
                "astra-register",
                ["--password", "astra1001", "--server", "127.0.0.1:\(port)", "--transport", transport,
                 "--timeout", "20", "--json", "sip:1001@127.0.0.1"])
            return (status, out, err, clock.now - start)
        }

        @Test func aPlainTextAnswerIsNamedAtOnce() async throws {
            let http = try HTTP400Port()
            defer { http.stop() }
            for transport in ["wss", "tls"] {
                let (status, out, err, took) = try await register(transport, port: http.port)
                #expect(status == 3, "\(transport): \(err)")
                #expect(took < .seconds(5), "\(transport): \(took)")
                let plain = transport == "wss" ? "ws" : "tcp"
                #expect(
                    err == "astra-register: 127.0.0.1:\(http.port) answered in plain text, not TLS (a ws:// or tcp "
                        + "port? try --transport \(plain))\n", "\(err)")
                #expect(out.contains("\"registered\":false"), "\(out)")
            }
        }

        @Test func kamailiosPlainWSPortIsNamedWithinTheTLSAnswerBound() async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            let (status, out, err, took) = try await register("wss", port: server.wsPort)
            #expect(status == 3, "\(err)")
            #expect(took >= .seconds(3) && took < .seconds(8), "\(took)")
            #expect(
                err == "astra-register: no TLS answer from 127.0.0.1:\(server.wsPort) within 3 s: is it a plain "
                    + "WS/TCP port? (try --transport ws)\n", "\(err)")
            #expect(out.contains("\"registered\":false"), "\(out)")
        }
    }
}

import AstraTestSupport
import COpenSSL
import Foundation
import Glibc
import Synchronization
import Testing

@testable import SIPTransport

/// The closing handshake as an independent server sees it on the wire: WebSocket Close ↔ Close
/// (RFC 6455 §7.1.1–7.1.2), then (WSS) our TLS close_notify before our TCP FIN, whichever side
/// starts. The server is an in-test blocking peer (TestServer, port 0) with OpenSSL's server
/// side for WSS; it records what arrives, in order.
@Suite("WebSocket closing handshake, both directions", .serialized)
struct WebSocketClosingTests {
    /// What the server saw, in order.
    enum Seen: String, Sendable {
        case clientClose = "Close from the client"
        case closeNotify = "TLS close_notify"
        case fin = "TCP FIN"
        case finWithoutCloseNotify = "TCP FIN before any close_notify"
        /// The client sent more (or its FIN) before the server's step it must wait for
        /// (our Close before its close_notify; our FIN before its FIN, §7.1.1).
        case clientDidNotWait = "the client went on without waiting"
        case nothing = "nothing (timeout or error)"
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let transport: TransportKind
        let serverCloses: Bool
        var testDescription: String { "\(transport), \(serverCloses ? "server" : "client") closes first" }
    }

    static let cases = [
        Case(transport: .ws, serverCloses: false), Case(transport: .ws, serverCloses: true),
        Case(transport: .wss, serverCloses: false), Case(transport: .wss, serverCloses: true),
    ]

    @Test(arguments: cases) func closingHandshake(_ c: Case) async throws {
        let certificate = try TestCertificate.make()
        defer { certificate.remove() }
        let seen = Mutex<[Seen]>([])
        let server = try TestServer { peer in
            let stream: ServerStream
            if c.transport == .wss {
                guard let tls = TLSServerSide(fd: peer.fd, certificate: certificate) else {
                    seen.withLock { $0.append(.nothing) }
                    return
                }
                stream = .tls(tls)
            } else {
                stream = .plain(peer)
            }
            let request = stream.read(until: [13, 10, 13, 10])
            stream.write(Array(TestServer.webSocketAnswer(to: request, subprotocol: "sip").utf8))
            let serverClose = WebSocketFrame(opcode: .close, payload: [0x03, 0xE8] + Array("server bye".utf8))
            if c.serverCloses { stream.write(serverClose.encoded()) }
            var decoder = WebSocketFrameDecoder(maxFrameSize: 1 << 16, expectMasked: true)
            var sawClose = false
            while !sawClose {
                let bytes = stream.readSome()
                if bytes.isEmpty { break }
                decoder.append(bytes)
                while let frame = try? decoder.next() {
                    if frame.opcode == .close {
                        sawClose = true
                        break
                    }
                }
            }
            seen.withLock { $0.append(sawClose ? .clientClose : .nothing) }
            guard sawClose else { return }
            if !c.serverCloses {
                // Nothing may follow the client's Close before our answer (§7.1.2).
                if !stream.isQuiet(peer.fd) { seen.withLock { $0.append(.clientDidNotWait) } }
                stream.write(WebSocketFrame(opcode: .close, payload: [0x03, 0xE8]).encoded())
            }
            // §7.1.1: the server closes TCP first; with TLS, close_notify both ways before it.
            // The client must wait for us: nothing (no FIN) may come before our close_notify or,
            // without TLS, our FIN (once our close_notify is out, it may close at once).
            if case .tls(let tls) = stream {
                seen.withLock { $0.append(tls.readCloseNotify() ? .closeNotify : .finWithoutCloseNotify) }
                if !stream.isQuiet(peer.fd) { seen.withLock { $0.append(.clientDidNotWait) } }
                tls.sendCloseNotify()
            } else if !stream.isQuiet(peer.fd) {
                seen.withLock { $0.append(.clientDidNotWait) }
            }
            shutdown(peer.fd, Int32(SHUT_WR))
            seen.withLock { $0.append(peer.readSome().isEmpty ? .fin : .nothing) }
        }
        defer { server.finish() }

        var options = ConnectionOptions()
        options.log = .discard
        options.keepAlive = nil
        options.tls = TLSOptions(caFile: certificate.certFile)
        options.closeTimeout = .seconds(10)  // a bound; reaching it would fail the timing check below
        let connection = try await StreamConnection.open(
            host: "127.0.0.1", port: server.port, transport: c.transport, options: options)
        let clock = ContinuousClock()
        let start = clock.now
        var closed: TransportError?
        if c.serverCloses {
            for await event in connection.events {
                if case .closed(let error) = event { closed = error }
            }
        } else {
            await connection.close()
            for await event in connection.events {
                if case .closed(let error) = event { closed = error }
            }
        }
        let took = clock.now - start
        server.finish()  // the script has recorded everything
        let expected: [Seen] = c.transport == .wss ? [.clientClose, .closeNotify, .fin] : [.clientClose, .fin]
        #expect(seen.withLock { $0 } == expected)
        #expect(took < .seconds(5), "closing waited for its bound: \(took)")
        if c.serverCloses {
            #expect(closed?.code == .peerClosed)
            #expect(closed?.detail.contains("WebSocket Close 1000") == true, "\(String(describing: closed))")
        } else {
            #expect(closed?.code == .closed, "\(String(describing: closed))")
        }
    }

    /// A server that never answers our Close: close() returns after the bound, not never.
    @Test func aSilentServerIsClosedAfterTheBound() async throws {
        let server = try TestServer { peer in
            let request = peer.read(until: [13, 10, 13, 10])
            peer.write(TestServer.webSocketAnswer(to: request, subprotocol: "sip"))
            peer.waitForClose()
        }
        defer { server.finish() }
        var options = ConnectionOptions()
        options.log = .discard
        options.keepAlive = nil
        options.closeTimeout = .milliseconds(300)
        let connection = try await StreamConnection.open(
            host: "127.0.0.1", port: server.port, transport: .ws, options: options)
        let clock = ContinuousClock()
        let start = clock.now
        await connection.close()
        let took = clock.now - start
        #expect(took >= .milliseconds(300) && took < .seconds(10), "\(took)")
        #expect(await !connection.isOpen)
    }
}

/// The server side of a test connection: the raw socket or OpenSSL over it.
enum ServerStream {
    case plain(TestServer.Peer)
    case tls(TLSServerSide)

    func read(until marker: [UInt8]) -> [UInt8] {
        switch self {
        case .plain(let peer): return peer.read(until: marker)
        case .tls(let tls):
            var out: [UInt8] = []
            while !out.containsSequence(marker) {
                let more = tls.readSome()
                if more.isEmpty { break }
                out += more
            }
            return out
        }
    }

    func readSome() -> [UInt8] {
        switch self {
        case .plain(let peer): peer.readSome()
        case .tls(let tls): tls.readSome()
        }
    }

    func write(_ bytes: [UInt8]) {
        switch self {
        case .plain(let peer): peer.write(bytes)
        case .tls(let tls): tls.write(bytes)
        }
    }

    /// True when nothing (no bytes, no FIN) is waiting on the socket nor inside OpenSSL: the
    /// client is waiting for us. Exact for a client that waits (it cannot have sent anything
    /// yet); one that does not wait is caught whenever its bytes have arrived by now.
    func isQuiet(_ fd: Int32) -> Bool {
        if case .tls(let tls) = self, tls.hasPendingPlaintext { return false }
        var byte: UInt8 = 0
        let n = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)
    }
}

/// OpenSSL's server side over an accepted blocking socket (test only), so the test can tell a
/// close_notify from a bare FIN.
final class TLSServerSide: @unchecked Sendable {
    private let ctx: OpaquePointer
    private let ssl: OpaquePointer

    init?(fd: Int32, certificate: TestCertificate) {
        guard let ctx = SSL_CTX_new(TLS_server_method()) else { return nil }
        guard SSL_CTX_use_certificate_file(ctx, certificate.certFile, SSL_FILETYPE_PEM) == 1,
              SSL_CTX_use_PrivateKey_file(ctx, certificate.keyFile, SSL_FILETYPE_PEM) == 1,
              let ssl = SSL_new(ctx)
        else {
            SSL_CTX_free(ctx)
            return nil
        }
        self.ctx = ctx
        self.ssl = ssl
        var tv = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        SSL_set_fd(ssl, fd)
        guard SSL_accept(ssl) == 1 else { return nil }
    }

    deinit {
        SSL_free(ssl)
        SSL_CTX_free(ctx)
    }

    /// Up to 4 KiB of application data; empty on close_notify, EOF, error or timeout.
    func readSome() -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = buffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
        return n > 0 ? Array(buffer[0..<Int(n)]) : []
    }

    /// Reads until the TLS stream ends: true when it ended with the peer's close_notify.
    func readCloseNotify() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if n > 0 { continue }
            return SSL_get_error(ssl, n) == SSL_ERROR_ZERO_RETURN
        }
    }

    func write(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
    }

    func sendCloseNotify() { _ = SSL_shutdown(ssl) }

    /// Decrypted bytes OpenSSL holds that were not read yet.
    var hasPendingPlaintext: Bool { SSL_pending(ssl) > 0 }
}

/// A self-signed certificate for 127.0.0.1 made by the openssl command, in a temporary folder.
struct TestCertificate: Sendable {
    let directory: String
    var certFile: String { directory + "/c.pem" }
    var keyFile: String { directory + "/k.pem" }

    static func make() throws -> TestCertificate {
        let directory = NSTemporaryDirectory() + "astra-cert-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let certificate = TestCertificate(directory: directory)
        spawn(
            [
                "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", certificate.keyFile, "-out", certificate.certFile, "-subj", "/CN=localhost", "-days", "1",
                "-addext", "subjectAltName=IP:127.0.0.1",
            ], wait: true)
        return certificate
    }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }
}

extension Array where Element == UInt8 {
    fileprivate func containsSequence(_ needle: [UInt8]) -> Bool {
        guard count >= needle.count else { return false }
        return (0...(count - needle.count)).contains { Array(self[$0..<($0 + needle.count)]) == needle }
    }
}

import COpenSSL
import Testing

@testable import HTTP2
@testable import TLSMemory

/// A client and a server session pumped into each other in memory — no socket, so the bytes each
/// side makes are exactly what the other is fed. The server is the HTTP/2 emulator's context
/// (TLS ≥ 1.2, ALPN h2 only) with an ephemeral certificate; the client offers h2 and, having no
/// CA for it, does not verify (SIPTransport's verifying client is tested over real sockets).
@Suite struct TLSMemorySessionTests {
    /// A client context offering `alpn` (wire format: length-prefixed names, RFC 7301 §3.1).
    final class ClientContext {
        let ctx: OpaquePointer
        init(alpn: [UInt8]) throws {
            ctx = try #require(SSL_CTX_new(TLS_client_method()))
            SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nil)
            _ = alpn.withUnsafeBufferPointer { SSL_CTX_set_alpn_protos(ctx, $0.baseAddress, UInt32($0.count)) }
        }
        deinit { SSL_CTX_free(ctx) }
    }

    let server: TLSServerContext
    init() throws { server = try TLSServerContext(identity: try TLSServerIdentity.ephemeral()) }

    /// Feeds each side what the other drained until neither has anything to say; the last steps.
    static func pump(_ client: TLSMemorySession, _ server: TLSMemorySession) -> (
        TLSMemorySession.Step, TLSMemorySession.Step
    ) {
        var steps = (client.handshake(), TLSMemorySession.Step.wantMore)
        for _ in 0..<20 {
            let toServer = client.drainOutbound()
            if !toServer.isEmpty {
                server.feed(toServer)
                steps.1 = server.handshake()
            }
            let toClient = server.drainOutbound()
            if !toClient.isEmpty {
                client.feed(toClient)
                steps.0 = client.handshake()
            }
            if toServer.isEmpty && toClient.isEmpty { break }
        }
        return steps
    }

    @Test func handshakeAndDataBothWaysThenCloseNotify() throws {
        let context = try ClientContext(alpn: [2] + Array("h2".utf8))
        let client = try TLSMemorySession(context: context.ctx, role: .client)
        let server = try TLSMemorySession(context: self.server.ctx, role: .server)
        let steps = Self.pump(client, server)
        #expect(steps.0 == .done && steps.1 == .done)
        #expect(client.alpn == "h2" && server.alpn == "h2")
        #expect(client.version == "TLSv1.3" && server.version == "TLSv1.3")

        try client.write(Array("PRI * HTTP/2.0".utf8))
        server.feed(client.drainOutbound())
        #expect(try server.readPlaintext() == Array("PRI * HTTP/2.0".utf8))
        let big = [UInt8](repeating: 0x5a, count: 40_000)  // more than one 16 KiB record
        try server.write(big)
        client.feed(server.drainOutbound())
        #expect(try client.readPlaintext() == big)

        client.shutdown()
        server.feed(client.drainOutbound())
        #expect(try server.readPlaintext().isEmpty)
        #expect(server.peerClosed && !client.peerClosed)
    }

    /// A client that offers no h2 gets no connection: the server's ALPN callback fails the
    /// handshake (`no_application_protocol`), and the failure is one line from OpenSSL's queue.
    @Test func handshakeFailureIsReportedWithTheAlert() throws {
        let context = try ClientContext(alpn: [8] + Array("http/1.1".utf8))
        let client = try TLSMemorySession(context: context.ctx, role: .client)
        let server = try TLSMemorySession(context: self.server.ctx, role: .server)
        let steps = Self.pump(client, server)
        #expect(steps.0 == .failed && steps.1 == .failed)
        let reason = OpenSSLError.last()
        #expect(reason.contains("application protocol"), "\(reason)")
        #expect(OpenSSLError.last() == "no OpenSSL error queued (peer closed?)")  // the queue was cleared
    }

    /// Garbage where a ClientHello belongs: a failed step, and a record error afterwards is a
    /// thrown one-line error, never a crash.
    @Test func garbageFailsTheHandshake() throws {
        let server = try TLSMemorySession(context: self.server.ctx, role: .server)
        server.feed(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        #expect(server.handshake() == .failed)
        #expect(!OpenSSLError.last().isEmpty)
        #expect(throws: TLSMemoryError.self) { try server.write([1, 2, 3]) }
    }
}

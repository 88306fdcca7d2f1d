import COpenSSL
import Testing
import TLSMemory

@testable import SIPTransport

/// A verified chain is remembered per client context (docs/decisions.md D48); what must still
/// be refused is: another chain, and the remembered chain for a name it does not carry.
@Suite struct VerifiedChainCacheTests {
    // MARK: The pure list

    private static func entry(_ byte: UInt8, from: Int = 100, until: Int = 200) -> VerifiedChains.Entry {
        VerifiedChains.Entry(digest: [UInt8](repeating: byte, count: 32), validFrom: from, validUntil: until)
    }

    @Test func aChainCountsOnlyInsideItsValidity() {
        var chains = VerifiedChains()
        chains.insert(Self.entry(1))
        let digest = [UInt8](repeating: 1, count: 32)
        #expect(chains.contains(digest, at: 100) && chains.contains(digest, at: 200))
        #expect(!chains.contains(digest, at: 99) && !chains.contains(digest, at: 201))
        #expect(!chains.contains([UInt8](repeating: 2, count: 32), at: 150))
    }

    @Test func theListIsBoundedAndTheOldestGoes() {
        var chains = VerifiedChains()
        for byte in 0..<UInt8(VerifiedChains.capacity + 3) { chains.insert(Self.entry(byte)) }
        #expect(chains.entries.count == VerifiedChains.capacity)
        #expect(!chains.contains([UInt8](repeating: 0, count: 32), at: 150))
        #expect(chains.contains([UInt8](repeating: UInt8(VerifiedChains.capacity + 2), count: 32), at: 150))
        chains.insert(Self.entry(5, until: 300))  // the same chain again replaces its entry
        #expect(chains.entries.count == VerifiedChains.capacity)
        #expect(chains.contains([UInt8](repeating: 5, count: 32), at: 250))
    }

    // MARK: Handshakes in memory

    /// A server context with `certificate`'s certificate and key.
    final class Server {
        let ctx: OpaquePointer
        init(_ certificate: TestCertificate) throws {
            ctx = try #require(SSL_CTX_new(TLS_server_method()))
            #expect(SSL_CTX_use_certificate_file(ctx, certificate.certFile, SSL_FILETYPE_PEM) == 1)
            #expect(SSL_CTX_use_PrivateKey_file(ctx, certificate.keyFile, SSL_FILETYPE_PEM) == 1)
        }
        deinit { SSL_CTX_free(ctx) }
    }

    /// One full handshake of a new client session of `context` with a new server session;
    /// nil when it completed, else the client's error.
    static func handshake(_ context: TLSClientContext, host: String, server: Server) throws -> TransportError? {
        let client = try TLSSession(context: context, host: host, transport: .tls, peer: "test")
        let session = try TLSMemorySession(context: server.ctx, role: .server)
        var step = client.handshake()
        for _ in 0..<20 {
            if case .done = step { return nil }
            if case .failed(let error) = step { return error }
            let toServer = client.drainOutbound()
            if !toServer.isEmpty {
                session.feed(toServer)
                _ = session.handshake()
            }
            client.feed(session.drainOutbound())
            step = client.handshake()
        }
        if case .failed(let error) = step { return error }
        return nil
    }

    @Test func aRememberedChainStillNeedsTheRightNameAndOtherChainsAreRefused() throws {
        // Self-signed, CN localhost, subjectAltName IP:127.0.0.1; `other`: another key and certificate.
        let trusted = try TestCertificate.make()
        let other = try TestCertificate.make()
        defer {
            trusted.remove()
            other.remove()
        }
        let context = try TLSClientContext(options: TLSOptions(caFile: trusted.certFile), transport: .tls, peer: "test")
        let server = try Server(trusted)

        #expect(try Self.handshake(context, host: "127.0.0.1", server: server) == nil)
        #expect(context.verifiedChains.hits == 0)
        #expect(try Self.handshake(context, host: "127.0.0.1", server: server) == nil)
        #expect(context.verifiedChains.hits == 1)

        // The remembered chain, for a name it does not carry: refused on the remembered path.
        let wrongName = try Self.handshake(context, host: "pbx.example.com", server: server)
        #expect(wrongName?.code == .certificateVerificationFailed, "\(String(describing: wrongName))")
        #expect(wrongName?.detail.contains("mismatch") == true, "\(String(describing: wrongName))")
        #expect(context.verifiedChains.hits == 2)
        let wrongAddress = try Self.handshake(context, host: "127.0.0.2", server: server)
        #expect(wrongAddress?.code == .certificateVerificationFailed, "\(String(describing: wrongAddress))")

        // Another chain: verified from scratch, and refused (not signed by the trusted CA).
        let changed = try Self.handshake(context, host: "127.0.0.1", server: try Server(other))
        #expect(changed?.code == .certificateVerificationFailed, "\(String(describing: changed))")
        #expect(context.verifiedChains.hits == 3)  // unchanged since the wrong address

        #expect(try Self.handshake(context, host: "127.0.0.1", server: server) == nil)
        #expect(context.verifiedChains.hits == 4)
    }
}

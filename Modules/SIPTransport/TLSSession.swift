import COpenSSL
import Glibc
import TLSMemory

/// One OpenSSL client connection for SIP over TLS and WSS: the client context (TLS ≥ 1.2, the
/// server verified against the system or a given CA, SNI, the host or IP address checked) over
/// TLSMemory's memory-BIO session, with failures as ``TransportError``s. The owning actor feeds
/// ciphertext in from the socket and drains it out, so OpenSSL never touches the descriptor.
///
/// Not Sendable: owned by exactly one ``StreamConnection`` actor.
final class TLSSession {
    enum HandshakeStep {
        case done
        case wantMore
        case failed(TransportError)
    }

    private let ctx: OpaquePointer
    private let session: TLSMemorySession
    private let transport: TransportKind
    private let peer: String

    init(options: TLSOptions, host: String, transport: TransportKind, peer: String) throws(TransportError) {
        self.transport = transport
        self.peer = peer
        guard let ctx = SSL_CTX_new(TLS_client_method()) else {
            throw TransportError(.tlsHandshakeFailed, transport: transport, peer: peer, "SSL_CTX_new failed")
        }
        // RFC 8996 / RFC 5630: nothing older than TLS 1.2.
        _ = astra_SSL_CTX_set_min_proto_version(ctx, astra_TLS1_2_VERSION())
        if options.verifyPeer {
            SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nil)
            if let caFile = options.caFile {
                if SSL_CTX_load_verify_locations(ctx, caFile, nil) != 1 {
                    SSL_CTX_free(ctx)
                    throw TransportError(
                        .invalidArgument, transport: transport, peer: peer,
                        "cannot load CA file \(caFile): \(OpenSSLError.last())")
                }
            } else {
                SSL_CTX_set_default_verify_paths(ctx)
            }
        } else {
            SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nil)
        }
        let session: TLSMemorySession
        do { session = try TLSMemorySession(context: ctx, role: .client) } catch {
            SSL_CTX_free(ctx)
            throw TransportError(.tlsHandshakeFailed, transport: transport, peer: peer, error.message)
        }
        let ssl = session.ssl
        let name = options.serverName ?? host
        let isIP = SocketAddress(ip: name, port: 0) != nil
        if !isIP { _ = astra_SSL_set_tlsext_host_name(ssl, name) }
        if options.verifyPeer {
            let bare = name.hasPrefix("[") ? String(name.dropFirst().dropLast()) : name
            let ok = isIP ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), bare) : SSL_set1_host(ssl, bare)
            if ok != 1 {
                SSL_CTX_free(ctx)
                throw TransportError(
                    .invalidArgument, transport: transport, peer: peer, "cannot verify against name \(name)")
            }
        }
        self.ctx = ctx
        self.session = session
    }

    deinit { SSL_CTX_free(ctx) }

    /// True once the peer sent close_notify.
    var peerClosed: Bool { session.peerClosed }

    /// Ciphertext received from the socket.
    func feed(_ bytes: [UInt8]) { session.feed(bytes) }

    /// Advances the handshake with what was fed so far; a failure says whether the server's
    /// certificate was rejected (and why) or the handshake itself failed.
    func handshake() -> HandshakeStep {
        switch session.handshake() {
        case .done: return .done
        case .wantMore: return .wantMore
        case .failed:
            let verify = SSL_get_verify_result(session.ssl)
            if verify != X509_V_OK {
                let reason = String(cString: X509_verify_cert_error_string(verify))
                return .failed(
                    TransportError(
                        .certificateVerificationFailed, transport: transport, peer: peer,
                        "server certificate rejected: \(reason) (X509 error \(verify))"))
            }
            return .failed(
                TransportError(
                    .tlsHandshakeFailed, transport: transport, peer: peer,
                    "TLS handshake failed: \(OpenSSLError.last())"))
        }
    }

    /// The negotiated protocol version, e.g. `TLSv1.3`.
    var version: String { session.version }

    /// Decrypts everything available; throws on a TLS-level failure.
    func readPlaintext() throws(TransportError) -> [UInt8] {
        do { return try session.readPlaintext() } catch {
            throw TransportError(.protocolViolation, transport: transport, peer: peer, error.message)
        }
    }

    /// Encrypts `plaintext`; the records are then in ``drainOutbound()``.
    func write(_ plaintext: [UInt8]) throws(TransportError) {
        do { try session.write(plaintext) } catch {
            throw TransportError(.sendFailed, transport: transport, peer: peer, error.message)
        }
    }

    /// Ciphertext waiting to go to the socket.
    func drainOutbound() -> [UInt8] { session.drainOutbound() }

    /// Queues a close_notify (RFC 5246 §7.2.1).
    func shutdown() { session.shutdown() }
}

import COpenSSL
import Glibc

/// One OpenSSL client connection over memory BIOs: ciphertext is fed in from the socket and
/// drained out to it by the owning actor, so OpenSSL never touches the file descriptor.
///
/// Not Sendable: owned by exactly one ``StreamConnection`` actor, or by the one thread of the
/// connection-oriented load engine.
public final class TLSSession {
    public enum HandshakeStep {
        case done
        case wantMore
        case failed(TransportError)
    }

    /// Kept alive as long as the session: `SSL_new` does not own its context.
    private let context: TLSClientContext
    private let ssl: OpaquePointer
    private let rbio: OpaquePointer
    private let wbio: OpaquePointer
    private let transport: TransportKind
    private let peer: String
    /// True once the peer sent close_notify.
    public private(set) var peerClosed = false

    /// A session with a context of its own (a flow's single connection).
    convenience init(options: TLSOptions, host: String, transport: TransportKind, peer: String) throws(TransportError) {
        let context = try TLSClientContext(options: options, transport: transport, peer: peer)
        try self.init(context: context, host: host, transport: transport, peer: peer)
    }

    /// A session on a shared context (verification settings and trust store loaded once).
    public init(context: TLSClientContext, host: String, transport: TransportKind, peer: String) throws(TransportError) {
        self.transport = transport
        self.peer = peer
        self.context = context
        let options = context.options
        let ctx = context.ctx
        guard let ssl = SSL_new(ctx), let rbio = BIO_new(BIO_s_mem()), let wbio = BIO_new(BIO_s_mem()) else {
            throw TransportError(.tlsHandshakeFailed, transport: transport, peer: peer, "SSL_new failed")
        }
        _ = astra_BIO_set_mem_eof_return(rbio, -1)
        SSL_set_bio(ssl, rbio, wbio)
        let name = options.serverName ?? host
        let isIP = SocketAddress(ip: name, port: 0) != nil
        if !isIP { _ = astra_SSL_set_tlsext_host_name(ssl, name) }
        if options.verifyPeer {
            let bare = name.hasPrefix("[") ? String(name.dropFirst().dropLast()) : name
            let ok = isIP ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), bare) : SSL_set1_host(ssl, bare)
            if ok != 1 {
                SSL_free(ssl)
                throw TransportError(
                    .invalidArgument, transport: transport, peer: peer, "cannot verify against name \(name)")
            }
        }
        SSL_set_connect_state(ssl)
        self.ssl = ssl
        self.rbio = rbio
        self.wbio = wbio
    }

    deinit { SSL_free(ssl) }

    /// Ciphertext received from the socket.
    public func feed(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        _ = bytes.withUnsafeBytes { BIO_write(rbio, $0.baseAddress, Int32($0.count)) }
    }

    /// Advances the handshake with what was fed so far.
    public func handshake() -> HandshakeStep {
        ERR_clear_error()
        let rc = SSL_do_handshake(ssl)
        if rc == 1 { return .done }
        let error = SSL_get_error(ssl, rc)
        if error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE { return .wantMore }
        let verify = SSL_get_verify_result(ssl)
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
                "TLS handshake failed: \(TLSSession.lastError())"))
    }

    /// The negotiated protocol version, e.g. `TLSv1.3`.
    public var version: String { String(cString: SSL_get_version(ssl)) }

    /// Decrypts everything available; throws on a TLS-level failure.
    public func readPlaintext() throws(TransportError) -> [UInt8] {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            ERR_clear_error()
            let n = buffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if n > 0 {
                out += buffer[0..<Int(n)]
                continue
            }
            let error = SSL_get_error(ssl, n)
            switch error {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
                return out
            case SSL_ERROR_ZERO_RETURN:
                peerClosed = true
                return out
            default:
                throw TransportError(
                    .protocolViolation, transport: transport, peer: peer, "TLS record error: \(TLSSession.lastError())")
            }
        }
    }

    /// Encrypts `plaintext`; the records are then in ``drainOutbound()``.
    public func write(_ plaintext: [UInt8]) throws(TransportError) {
        guard !plaintext.isEmpty else { return }
        ERR_clear_error()
        let n = plaintext.withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
        if n <= 0 {
            throw TransportError(
                .sendFailed, transport: transport, peer: peer, "SSL_write failed: \(TLSSession.lastError())")
        }
    }

    /// Ciphertext waiting to go to the socket.
    public func drainOutbound() -> [UInt8] {
        let pending = Int(astra_BIO_ctrl_pending(wbio))
        guard pending > 0 else { return [] }
        var out = [UInt8](repeating: 0, count: pending)
        let n = out.withUnsafeMutableBytes { BIO_read(wbio, $0.baseAddress, Int32($0.count)) }
        return n > 0 ? Array(out[0..<Int(n)]) : []
    }

    /// Queues a close_notify (RFC 5246 §7.2.1).
    public func shutdown() {
        ERR_clear_error()
        _ = SSL_shutdown(ssl)
    }

    public static func lastError() -> String {
        let code = ERR_get_error()
        guard code != 0 else { return "no OpenSSL error queued (peer closed?)" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(cChars: buffer)
    }
}

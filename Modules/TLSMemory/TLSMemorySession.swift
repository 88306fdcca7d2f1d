import COpenSSL

/// One OpenSSL connection over memory BIOs, client or server: ciphertext from the socket is fed
/// in and ciphertext for the socket drained out, so OpenSSL never touches the descriptor and the
/// owning actor decides when IO happens. The one implementation of this step for SIP over TLS
/// (SIPTransport's `TLSSession`, a client) and HTTP/2 over TLS (the HTTP2 module's server
/// connections, the push provider emulator).
///
/// What differs between them stays with the caller: the context (verification, ALPN, suites)
/// and, before the first ``handshake()``, per-connection settings on ``ssl`` (SNI, the name to
/// verify against).
///
/// Not Sendable: owned by exactly one connection actor.
public final class TLSMemorySession {
    public enum Role: Sendable {
        case client
        case server
    }

    /// Where the handshake stands after the bytes fed so far.
    public enum Step: Sendable, Equatable {
        case done
        case wantMore
        /// The handshake failed: ``OpenSSLError/last()`` says why (or, for a client that
        /// verifies, `SSL_get_verify_result(ssl)`); ``drainOutbound()`` holds the alert.
        case failed
    }

    /// The connection, for settings before the handshake (`SSL_set_tlsext_host_name`,
    /// `SSL_set1_host`, …) and queries after it. Owned by this session.
    public let ssl: OpaquePointer
    private let rbio: OpaquePointer
    private let wbio: OpaquePointer
    /// True once the peer sent close_notify (RFC 8446 §6.1).
    public private(set) var peerClosed = false

    /// A connection of `context` (an `SSL_CTX *`, which OpenSSL reference-counts: the context may
    /// be freed before the session).
    public init(context: OpaquePointer, role: Role) throws(TLSMemoryError) {
        guard let ssl = SSL_new(context) else { throw TLSMemoryError("SSL_new failed: \(OpenSSLError.last())") }
        guard let rbio = BIO_new(BIO_s_mem()), let wbio = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            throw TLSMemoryError("BIO_new failed")
        }
        // An empty read BIO means "more to come", not EOF: the socket may not have delivered yet.
        _ = astra_BIO_set_mem_eof_return(rbio, -1)
        SSL_set_bio(ssl, rbio, wbio)
        switch role {
        case .client: SSL_set_connect_state(ssl)
        case .server: SSL_set_accept_state(ssl)
        }
        self.ssl = ssl
        self.rbio = rbio
        self.wbio = wbio
    }

    deinit { SSL_free(ssl) }  // frees both BIOs too

    /// Ciphertext received from the socket.
    public func feed(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        _ = bytes.withUnsafeBytes { BIO_write(rbio, $0.baseAddress, Int32($0.count)) }
    }

    /// Advances the handshake with what was fed so far.
    public func handshake() -> Step {
        ERR_clear_error()
        let rc = SSL_do_handshake(ssl)
        if rc == 1 { return .done }
        let error = SSL_get_error(ssl, rc)
        return error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE ? .wantMore : .failed
    }

    /// The negotiated protocol version, e.g. `TLSv1.3`.
    public var version: String { String(cString: SSL_get_version(ssl)) }

    /// The protocol ALPN selected (RFC 7301), e.g. `h2`, or nil.
    public var alpn: String? {
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    /// Decrypts everything available; a close_notify sets ``peerClosed``.
    public func readPlaintext() throws(TLSMemoryError) -> [UInt8] {
        var out: [UInt8] = []
        // Uninitialized: SSL_read writes what it returns, and zeroing 16 KiB on every read was a
        // measurable part of a short connection's cost (docs/decisions.md D48).
        var buffer = [UInt8](unsafeUninitializedCapacity: 16_384) { _, count in count = 16_384 }
        while true {
            ERR_clear_error()
            let n = buffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if n > 0 {
                out += buffer[0..<Int(n)]
                continue
            }
            switch SSL_get_error(ssl, n) {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
                return out
            case SSL_ERROR_ZERO_RETURN:
                peerClosed = true
                return out
            default:
                throw TLSMemoryError("TLS record error: \(OpenSSLError.last())")
            }
        }
    }

    /// Encrypts `plaintext`; the records are then in ``drainOutbound()``.
    public func write(_ plaintext: [UInt8]) throws(TLSMemoryError) {
        guard !plaintext.isEmpty else { return }
        ERR_clear_error()
        let n = plaintext.withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
        if n <= 0 { throw TLSMemoryError("SSL_write failed: \(OpenSSLError.last())") }
    }

    /// Ciphertext waiting to go to the socket, in the order TLS made it.
    public func drainOutbound() -> [UInt8] {
        let pending = Int(astra_BIO_ctrl_pending(wbio))
        guard pending > 0 else { return [] }
        var out = [UInt8](repeating: 0, count: pending)
        let n = out.withUnsafeMutableBytes { BIO_read(wbio, $0.baseAddress, Int32($0.count)) }
        return n > 0 ? Array(out[0..<Int(n)]) : []
    }

    /// Queues a close_notify (RFC 8446 §6.1, RFC 5246 §7.2.1).
    public func shutdown() {
        ERR_clear_error()
        _ = SSL_shutdown(ssl)
    }
}

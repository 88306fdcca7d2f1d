import COpenSSL

/// One server-side TLS connection over memory BIOs: ciphertext from the socket is fed in,
/// ciphertext for the socket is drained out, so OpenSSL never touches the descriptor and the
/// owner (one ``HTTP2ServerConnection`` actor) decides when IO happens.
///
/// Not Sendable: owned by exactly one connection actor.
final class TLSServerSession {
    enum Step: Equatable {
        case done
        case wantMore
        case failed(String)
    }

    private let ssl: OpaquePointer
    private let rbio: OpaquePointer
    private let wbio: OpaquePointer
    /// True once the peer sent close_notify.
    private(set) var peerClosed = false

    init(context: TLSServerContext) throws(HTTP2Error) {
        guard let ssl = SSL_new(context.ctx), let rbio = BIO_new(BIO_s_mem()), let wbio = BIO_new(BIO_s_mem()) else {
            throw HTTP2Error(.tls, "SSL_new failed")
        }
        _ = astra_BIO_set_mem_eof_return(rbio, -1)
        SSL_set_bio(ssl, rbio, wbio)
        SSL_set_accept_state(ssl)
        self.ssl = ssl
        self.rbio = rbio
        self.wbio = wbio
    }

    deinit { SSL_free(ssl) }

    func feed(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        _ = bytes.withUnsafeBytes { BIO_write(rbio, $0.baseAddress, Int32($0.count)) }
    }

    /// Advances the handshake with what was fed so far.
    func handshake() -> Step {
        ERR_clear_error()
        let rc = SSL_do_handshake(ssl)
        if rc == 1 { return .done }
        let error = SSL_get_error(ssl, rc)
        if error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE { return .wantMore }
        return .failed("TLS handshake failed: \(TLSServerContext.lastError())")
    }

    /// The protocol ALPN selected (`h2`), or nil.
    var alpn: String? {
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    /// The negotiated version, e.g. `TLSv1.3`.
    var version: String { String(cString: SSL_get_version(ssl)) }

    /// Decrypts everything available.
    func readPlaintext() throws(HTTP2Error) -> [UInt8] {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
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
                throw HTTP2Error(.tls, "TLS record error: \(TLSServerContext.lastError())")
            }
        }
    }

    /// Encrypts `plaintext` into the outbound buffer.
    func write(_ plaintext: [UInt8]) throws(HTTP2Error) {
        guard !plaintext.isEmpty else { return }
        ERR_clear_error()
        let n = plaintext.withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
        if n <= 0 { throw HTTP2Error(.tls, "SSL_write failed: \(TLSServerContext.lastError())") }
    }

    /// Ciphertext waiting for the socket.
    func drainOutbound() -> [UInt8] {
        let pending = Int(astra_BIO_ctrl_pending(wbio))
        guard pending > 0 else { return [] }
        var out = [UInt8](repeating: 0, count: pending)
        let n = out.withUnsafeMutableBytes { BIO_read(wbio, $0.baseAddress, Int32($0.count)) }
        return n > 0 ? Array(out[0..<Int(n)]) : []
    }

    /// Queues a close_notify.
    func shutdown() {
        ERR_clear_error()
        _ = SSL_shutdown(ssl)
    }
}

import COpenSSL
import TLSMemory

/// OpenSSL's server context for HTTP/2 over TLS (RFC 9113 §9.2): TLS 1.2 or newer, no
/// renegotiation, AEAD suites with forward secrecy for TLS 1.2 (the §9.2.2 block list never
/// applies), and ALPN that selects `h2` or fails the handshake with `no_application_protocol` —
/// APNs speaks nothing else (PUSH-PROVIDERS.md), so a client that does not offer `h2` gets no
/// connection, as from Apple.
public final class TLSServerContext: @unchecked Sendable {
    let ctx: OpaquePointer
    public let identity: TLSServerIdentity

    public init(identity: TLSServerIdentity) throws(HTTP2Error) {
        guard let ctx = SSL_CTX_new(TLS_server_method()) else { throw HTTP2Error(.tls, "SSL_CTX_new failed") }
        _ = astra_SSL_CTX_set_min_proto_version(ctx, astra_TLS1_2_VERSION())
        _ = SSL_CTX_set_options(ctx, astra_SSL_OP_NO_RENEGOTIATION())
        _ = SSL_CTX_set_cipher_list(ctx, "ECDHE+AESGCM:ECDHE+CHACHA20")
        guard SSL_CTX_use_certificate(ctx, identity.certificate) == 1,
            SSL_CTX_use_PrivateKey(ctx, identity.key) == 1,
            identity.chain.allSatisfy({ astra_SSL_CTX_add1_chain_cert(ctx, $0) == 1 })
        else {
            let reason = OpenSSLError.last()
            SSL_CTX_free(ctx)
            throw HTTP2Error(.tls, "server certificate or key refused: \(reason)")
        }
        SSL_CTX_set_alpn_select_cb(
            ctx,
            { _, out, outLength, offered, offeredLength, _ in
                // The client's list is length-prefixed protocol names (RFC 7301 §3.1); pick h2.
                guard let offered, let out, let outLength else { return SSL_TLSEXT_ERR_ALERT_FATAL }
                var i = 0
                let total = Int(offeredLength)
                while i < total {
                    let length = Int(offered[i])
                    if length == 2, i + 2 < total, offered[i + 1] == UInt8(ascii: "h"), offered[i + 2] == UInt8(ascii: "2") {
                        out.pointee = offered + i + 1
                        outLength.pointee = 2
                        return SSL_TLSEXT_ERR_OK
                    }
                    i += 1 + length
                }
                return SSL_TLSEXT_ERR_ALERT_FATAL
            }, nil)
        self.ctx = ctx
        self.identity = identity
    }

    deinit { SSL_CTX_free(ctx) }
}

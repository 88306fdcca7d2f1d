import COpenSSL
import TLSMemory

/// One OpenSSL client context (`SSL_CTX`): protocol floor, verification mode and trust store,
/// loaded once and shared by every ``TLSSession`` made from it.
///
/// A flow has one connection and makes its own; the connection-oriented load engine opens
/// thousands and shares one (loading the trust store per connection costs more than the
/// handshake). Sharing a context does not resume sessions: no session is ever offered back
/// (`SSL_set_session` is never called), so every connection runs a full handshake, as a fleet of
/// distinct phones does.
///
/// A chain of certificates that verified is not built again for the next connection
/// (``VerifiedChainCache``, docs/decisions.md D48): the name is still checked, and the server
/// still proves on every handshake that it holds the certificate's key.
///
/// Immutable after `init` (OpenSSL allows one `SSL_CTX` to be used by many `SSL` objects at
/// once, from any thread, once configured), hence `@unchecked Sendable`.
package final class TLSClientContext: @unchecked Sendable {
    let ctx: OpaquePointer
    public let options: TLSOptions
    /// The chains this context verified (its trust store and settings never change).
    let verifiedChains = VerifiedChainCache()

    /// - Parameters:
    ///   - releaseBuffers: `SSL_MODE_RELEASE_BUFFERS`: an idle connection gives its ~34 KiB of
    ///     record buffers back (a fleet holds thousands of idle connections; a flow has one).
    /// - Throws: `.invalidArgument` when the CA file cannot be loaded, `.tlsHandshakeFailed`
    ///   when OpenSSL cannot make a context.
    public init(options: TLSOptions, transport: TransportKind, peer: String,
                releaseBuffers: Bool = false) throws(TransportError) {
        self.options = options
        guard let ctx = SSL_CTX_new(TLS_client_method()) else {
            throw TransportError(.tlsHandshakeFailed, transport: transport, peer: peer, "SSL_CTX_new failed")
        }
        // RFC 8996 / RFC 5630: nothing older than TLS 1.2.
        _ = astra_SSL_CTX_set_min_proto_version(ctx, astra_TLS1_2_VERSION())
        if releaseBuffers { _ = astra_SSL_CTX_set_mode(ctx, Int(SSL_MODE_RELEASE_BUFFERS)) }
        if options.verifyPeer {
            SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nil)
            verifiedChains.install(on: ctx)
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
        self.ctx = ctx
    }

    deinit { SSL_CTX_free(ctx) }
}

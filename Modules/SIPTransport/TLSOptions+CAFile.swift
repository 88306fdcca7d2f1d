import COpenSSL
#if canImport(Glibc)
    import Glibc
#endif

extension TLSOptions {
    /// Checks that `path` is a readable file of PEM CA certificates OpenSSL can load, before any
    /// connection is tried: a missing or non-PEM `ca_file` is a configuration error (exit 64),
    /// not an outage (docs/tools.md "Exit codes").
    public static func checkCAFile(_ path: String) throws(TransportError) {
        guard access(path, R_OK) == 0 else {
            throw TransportError(.invalidArgument, "ca_file '\(path)': \(String(cString: strerror(errno)))")
        }
        guard let ctx = SSL_CTX_new(TLS_client_method()) else {
            throw TransportError(.tlsHandshakeFailed, "SSL_CTX_new failed")
        }
        defer { SSL_CTX_free(ctx) }
        ERR_clear_error()
        guard SSL_CTX_load_verify_locations(ctx, path, nil) == 1 else {
            throw TransportError(
                .invalidArgument, "ca_file '\(path)' holds no PEM certificate OpenSSL can load (\(TLSSession.lastError()))")
        }
    }
}

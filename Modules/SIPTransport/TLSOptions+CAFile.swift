import COpenSSL
import TLSMemory
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
        // A regular file of a sane size: OpenSSL would read /dev/zero or a FIFO until memory ends.
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_size <= 4 << 20 else {
            throw TransportError(.invalidArgument, "ca_file '\(path)' is not a regular file of at most 4 MiB")
        }
        guard let ctx = SSL_CTX_new(TLS_client_method()) else {
            throw TransportError(.tlsHandshakeFailed, "SSL_CTX_new failed")
        }
        defer { SSL_CTX_free(ctx) }
        ERR_clear_error()
        guard SSL_CTX_load_verify_locations(ctx, path, nil) == 1 else {
            throw TransportError(
                .invalidArgument, "ca_file '\(path)' holds no PEM certificate OpenSSL can load (\(OpenSSLError.last()))")
        }
    }
}

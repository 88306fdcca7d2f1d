import COpenSSL
import Synchronization
import TLSMemory
#if canImport(Glibc)
    import Glibc
#endif

extension TLSOptions {
    /// Checks that `path` is a readable file of PEM CA certificates OpenSSL can load, before any
    /// connection is tried: a missing or non-PEM `ca_file` is a configuration error (exit 64),
    /// not an outage (docs/tools.md "Exit codes").
    ///
    /// A file that loaded once is not loaded again while it is the same file (device, inode,
    /// size, modification and change times): a load file names the same CA file on each of its
    /// thousands of lines, and each load cost a context and a PEM parse (~2.9 M instructions,
    /// more than the TLS handshake of the line; docs/decisions.md D48). The path is still
    /// checked for access and type on every call, and a file that was changed is loaded again.
    public static func checkCAFile(_ path: String) throws(TransportError) {
        guard access(path, R_OK) == 0 else {
            throw TransportError(.invalidArgument, "ca_file '\(path)': \(String(cString: strerror(errno)))")
        }
        // A regular file of a sane size: OpenSSL would read /dev/zero or a FIFO until memory ends.
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_size <= 4 << 20 else {
            throw TransportError(.invalidArgument, "ca_file '\(path)' is not a regular file of at most 4 MiB")
        }
        let identity = CAFileIdentity(path: path, status: status)
        if loadedCAFiles.withLock({ $0.contains(identity) }) { return }
        guard let ctx = SSL_CTX_new(TLS_client_method()) else {
            throw TransportError(.tlsHandshakeFailed, "SSL_CTX_new failed")
        }
        defer { SSL_CTX_free(ctx) }
        ERR_clear_error()
        guard SSL_CTX_load_verify_locations(ctx, path, nil) == 1 else {
            throw TransportError(
                .invalidArgument, "ca_file '\(path)' holds no PEM certificate OpenSSL can load (\(OpenSSLError.last()))")
        }
        loadedCAFiles.withLock { files in
            if files.count < CAFileIdentity.remembered { files.insert(identity) }
        }
    }
}

/// A CA file as `stat(2)` saw it: a change of content changes its size or times. The times are
/// kept as plain integers (`timespec` is not `Hashable`), so equality and hashing are Swift's
/// own over every field.
struct CAFileIdentity: Hashable {
    /// At most this many files are remembered (a process names a handful).
    static let remembered = 64

    let path: String
    let device: UInt64
    let inode: UInt64
    let size: Int64
    let modifiedSeconds: Int64
    let modifiedNanoseconds: Int64
    let changedSeconds: Int64
    let changedNanoseconds: Int64

    init(path: String, status: stat) {
        self.path = path
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
        size = Int64(status.st_size)
        modifiedSeconds = Int64(status.st_mtim.tv_sec)
        modifiedNanoseconds = Int64(status.st_mtim.tv_nsec)
        changedSeconds = Int64(status.st_ctim.tv_sec)
        changedNanoseconds = Int64(status.st_ctim.tv_nsec)
    }
}

/// The CA files that loaded, by identity (process-wide: every line of a run shares them).
private let loadedCAFiles = Mutex<Set<CAFileIdentity>>([])

import Glibc
import Synchronization

/// The client contexts of a process's flows, one per distinct ``TLSOptions`` (and CA file
/// version): a process that holds many lines to one server — `astra-register --monitor` with a
/// thousand WSS lines — loads the trust store once instead of once per connection, and every
/// connection made from a cached context gives its idle record buffers back
/// (`SSL_MODE_RELEASE_BUFFERS`, ~34 KiB each). Sharing does not resume sessions
/// (``TLSClientContext``): each connection still runs a full handshake and checks the name.
///
/// A CA file is keyed by its path, size and modification time, so a file replaced on disk
/// (a renewed private CA) is read again at the next connection; the old context goes once its
/// last connection ends.
enum TLSClientContextCache {
    private struct Key: Hashable {
        let options: TLSOptions
        let caFileSize: Int64
        let caFileModified: Int64
    }

    private static let contexts = Mutex<[Key: TLSClientContext]>([:])

    /// The shared context for `options`, made (and its CA file loaded) on first use.
    static func context(for options: TLSOptions, transport: TransportKind, peer: String) throws(TransportError)
        -> TLSClientContext
    {
        var size: Int64 = -1
        var modified: Int64 = -1
        if let path = options.caFile {
            var info = stat()
            if stat(path, &info) == 0 {
                size = Int64(info.st_size)
                modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
            }
        }
        let key = Key(options: options, caFileSize: size, caFileModified: modified)
        if let existing = contexts.withLock({ $0[key] }) { return existing }
        let made = try TLSClientContext(options: options, transport: transport, peer: peer, releaseBuffers: true)
        return contexts.withLock { table in
            if let raced = table[key] { return raced }
            // Drop the entries of older versions of the same CA file.
            table = table.filter { $0.key.options != options }
            table[key] = made
            return made
        }
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The files tools write besides standard output (`-o` pictures, `--pcap`, `--sip-trace-file`):
/// created private (0600 — a trace or a timeline names users, numbers and addresses) and
/// truncated, written with plain `write(2)` so each record is on disk when the call returns.
/// Failures are one line naming the option and the path (exit 64: the path was the user's).
public enum OutputFile {
    /// Opens `path` for writing; `option` names it in the error (`--pcap x.pcap: …`).
    public static func create(_ path: String, option: String) throws(ToolError) -> Int32 {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw ToolError(.usage, "\(option) \(path): \(String(cString: strerror(errno)))") }
        return fd
    }

    /// Whether `path` can be written, checked when the arguments are parsed, so that a file a
    /// long-running tool opens only later (`astra-wakegw --provider-capture`) fails at once with
    /// the one line and exit 64 rather than after the listeners are up: the file is created (or
    /// truncated, as the real open would) mode 0600 and closed again. A directory, a missing or
    /// unwritable parent all fail here.
    public static func check(_ path: String, option: String) throws(ToolError) {
        close(try create(path, option: option))
    }

    /// Writes all of `bytes` (retrying short writes and EINTR).
    public static func write(_ fd: Int32, _ bytes: [UInt8], path: String) throws(ToolError) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes {
                #if canImport(Glibc)
                    Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset)
                #else
                    Darwin.write(fd, $0.baseAddress! + offset, $0.count - offset)
                #endif
            }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                throw ToolError(.failed, "\(path): write failed: \(String(cString: strerror(errno)))")
            }
            offset += n
        }
    }

    /// Creates `path` and writes `bytes` to it.
    public static func save(_ bytes: [UInt8], to path: String, option: String) throws(ToolError) {
        let fd = try create(path, option: option)
        defer { close(fd) }
        try write(fd, bytes, path: path)
    }
}

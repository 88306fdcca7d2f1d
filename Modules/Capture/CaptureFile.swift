import Glibc

/// The files captures go to: created private (0600: a trace names users and numbers) and
/// truncated, written with plain `write(2)` so each record is on disk when the call returns.
public enum CaptureFile {
    /// Opens `path` for writing; `what` names the option in the error (`--pcap x: …`).
    public static func create(_ path: String, what: String) throws(CaptureError) -> Int32 {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw CaptureError(.file, "\(what) \(path): \(String(cString: strerror(errno)))")
        }
        return fd
    }

    /// Writes all of `bytes` (retrying short writes and EINTR).
    public static func write(_ fd: Int32, _ bytes: [UInt8], path: String) throws(CaptureError) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw CaptureError(.file, "\(path): write failed: \(String(cString: strerror(errno)))") }
            offset += n
        }
    }

    /// Creates `path` and writes `bytes` to it.
    public static func save(_ bytes: [UInt8], to path: String, what: String) throws(CaptureError) {
        let fd = try create(path, what: what)
        defer { close(fd) }
        try write(fd, bytes, path: path)
    }
}

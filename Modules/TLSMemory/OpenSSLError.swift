import COpenSSL

/// OpenSSL's error queue as one line for a diagnostic.
public enum OpenSSLError {
    /// The oldest error OpenSSL queued on this thread, one line; the queue is cleared so the next
    /// failure is not blamed on this one.
    public static func last() -> String {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0 else { return "no OpenSSL error queued (peer closed?)" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

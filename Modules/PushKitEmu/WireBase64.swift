/// Base64url without padding (RFC 4648 §5): how the client protocol carries blobs and call keys.
enum WireBase64 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var i = 0
        while i < bytes.count {
            let n = min(3, bytes.count - i)
            var v = UInt32(bytes[i]) << 16
            if n > 1 { v |= UInt32(bytes[i + 1]) << 8 }
            if n > 2 { v |= UInt32(bytes[i + 2]) }
            for k in 0...n { out.append(alphabet[Int((v >> UInt32(18 - 6 * k)) & 0x3F)]) }
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes, or nil for a character outside the alphabet or an impossible length.
    static func decode(_ text: String) -> [UInt8]? {
        var values: [UInt32] = []
        for c in text.utf8 {
            guard let v = alphabet.firstIndex(of: c) else { return nil }
            values.append(UInt32(v))
        }
        guard values.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        var i = 0
        while i < values.count {
            let n = min(4, values.count - i)
            var v: UInt32 = 0
            for k in 0..<4 { v = v << 6 | (k < n ? values[i + k] : 0) }
            for k in 0..<(n - 1) { out.append(UInt8(truncatingIfNeeded: v >> UInt32(16 - 8 * k))) }
            i += 4
        }
        return out
    }
}

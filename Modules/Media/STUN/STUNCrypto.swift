import COpenSSL

/// The hashes STUN needs (RFC 8489 §14.5–§14.7, §9.2.2), over OpenSSL's one-shot functions.
enum STUNCrypto {
    /// HMAC-SHA1 (20 octets) or HMAC-SHA256 (32 octets) of `data` under `key`.
    static func hmac(sha256: Bool, key: [UInt8], _ data: UnsafeRawBufferPointer) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        key.withUnsafeBufferPointer { k in
            out.withUnsafeMutableBufferPointer { o in
                _ = HMAC(
                    sha256 ? EVP_sha256() : EVP_sha1(), k.baseAddress, Int32(k.count),
                    data.baseAddress?.assumingMemoryBound(to: UInt8.self), data.count, o.baseAddress, &length)
            }
        }
        return Array(out.prefix(Int(length)))
    }

    /// A message digest (`EVP_md5()`, `EVP_sha256()`…).
    static func digest(_ md: OpaquePointer?, _ data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 64)
        var length: UInt32 = 0
        data.withUnsafeBufferPointer { d in
            out.withUnsafeMutableBufferPointer { o in
                _ = EVP_Digest(d.baseAddress, d.count, o.baseAddress, &length, md, nil)
            }
        }
        return Array(out.prefix(Int(length)))
    }

    /// RFC 8489 §9.2.2: the long-term key MD5(username ":" realm ":" password) (SASLprep /
    /// OpaqueString processing is the caller's; ASCII passwords are unaffected).
    static func longTermKey(username: String, realm: String, password: String) -> [UInt8] {
        digest(EVP_md5(), Array("\(username):\(realm):\(password)".utf8))
    }

    private static let crcTable: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    /// ISO 3309 / ITU-T V.42 CRC-32 (the one of zlib), as RFC 8489 §14.7 requires.
    static func crc32(_ data: UnsafeRawBufferPointer) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in data { c = crcTable[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }
}

import COpenSSL

/// A streaming EVP hash with no intermediate string building: `update` the parts of
/// `A:B:C` one by one and `finalizeHex()`. Owns its `EVP_MD_CTX`; the pointer never escapes.
struct DigestHasher: ~Copyable {
    private let context: OpaquePointer

    init(_ hash: DigestHash) throws(DigestError) {
        guard let md = hash.evpMD, let context = EVP_MD_CTX_new() else {
            throw DigestError(.hashUnavailable, hash.openSSLName)
        }
        guard EVP_DigestInit_ex(context, md, nil) == 1 else {
            EVP_MD_CTX_free(context)
            throw DigestError(.hashUnavailable, hash.openSSLName)
        }
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        _ = EVP_DigestUpdate(context, base, bytes.count)
    }

    mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    mutating func update(_ text: String) {
        let done: Void? = text.utf8.withContiguousStorageIfAvailable { update(UnsafeRawBufferPointer($0)) }
        if done == nil { update(Array(text.utf8)) }
    }

    /// Appends `text` followed by ':' — the digest field separator.
    mutating func update(field text: String) {
        update(text)
        withUnsafeBytes(of: UInt8(ascii: ":")) { update($0) }
    }

    /// Finishes and returns lower-case hex.
    consuming func finalizeHex() throws(DigestError) -> String {
        var digest: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
        var length: UInt32 = 0
        let ok = withUnsafeMutableBytes(of: &digest) { raw in
            EVP_DigestFinal_ex(context, raw.baseAddress!.assumingMemoryBound(to: UInt8.self), &length)
        }
        guard ok == 1, length <= 64 else { throw DigestError(.hashUnavailable, "final") }
        let count = Int(length)
        return withUnsafeBytes(of: &digest) { raw in
            String(unsafeUninitializedCapacity: count * 2) { out in
                let digits: StaticString = "0123456789abcdef"
                digits.withUTF8Buffer { hex in
                    for i in 0..<count {
                        out[2 * i] = hex[Int(raw[i] >> 4)]
                        out[2 * i + 1] = hex[Int(raw[i] & 0x0F)]
                    }
                }
                return count * 2
            }
        }
    }
}

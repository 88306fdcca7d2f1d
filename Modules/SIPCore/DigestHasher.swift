import COpenSSL

/// A streaming hash with no intermediate string building: `update` the parts of `A:B:C` one
/// by one and `finalizeHex()`.
///
/// MD5 and SHA-256 — every digest a registrar asks for in practice — run on OpenSSL's
/// low-level functions, which need no provider: the first EVP fetch initialises OpenSSL 3's
/// provider and method store, ~6 M instructions, a third of a one-shot registration
/// (docs/decisions.md). SHA-512/256 has no low-level form and uses EVP. The context lives in
/// the value (MD5/SHA-256) or in an owned `EVP_MD_CTX` that never escapes.
struct DigestHasher: ~Copyable {
    private enum State {
        case md5(MD5_CTX)
        case sha256(SHA256_CTX)
        case evp(OpaquePointer)
    }

    private var state: State

    init(_ hash: DigestHash) throws(DigestError) {
        switch hash {
        case .md5:
            var c = MD5_CTX()
            guard astra_MD5_Init(&c) == 1 else { throw DigestError(.hashUnavailable, hash.openSSLName) }
            state = .md5(c)
        case .sha256:
            var c = SHA256_CTX()
            guard astra_SHA256_Init(&c) == 1 else { throw DigestError(.hashUnavailable, hash.openSSLName) }
            state = .sha256(c)
        case .sha512_256:
            guard let md = hash.evpMD, let context = EVP_MD_CTX_new() else {
                throw DigestError(.hashUnavailable, hash.openSSLName)
            }
            guard EVP_DigestInit_ex(context, md, nil) == 1 else {
                EVP_MD_CTX_free(context)
                throw DigestError(.hashUnavailable, hash.openSSLName)
            }
            state = .evp(context)
        }
    }

    deinit { if case .evp(let context) = state { EVP_MD_CTX_free(context) } }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        switch state {
        case .md5(var c):
            _ = astra_MD5_Update(&c, base, bytes.count)
            state = .md5(c)
        case .sha256(var c):
            _ = astra_SHA256_Update(&c, base, bytes.count)
            state = .sha256(c)
        case .evp(let context):
            _ = EVP_DigestUpdate(context, base, bytes.count)
        }
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
            let out = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
            switch state {
            case .md5(var c):
                length = 16
                return astra_MD5_Final(out, &c)
            case .sha256(var c):
                length = 32
                return astra_SHA256_Final(out, &c)
            case .evp(let context):
                return EVP_DigestFinal_ex(context, out, &length)
            }
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

import COpenSSL

/// AES-128-CTR keystream from OpenSSL, as an independent check of libsrtp's output.
enum AESCTR {
    struct Failure: Error {}
    static func keystream(key: [UInt8], iv: [UInt8], count: Int) throws -> [UInt8] {
        guard let ctx = EVP_CIPHER_CTX_new() else { throw Failure() }
        defer { EVP_CIPHER_CTX_free(ctx) }
        guard EVP_EncryptInit_ex(ctx, EVP_aes_128_ctr(), nil, key, iv) == 1 else { throw Failure() }
        let zeros = [UInt8](repeating: 0, count: count)
        var out = [UInt8](repeating: 0, count: count + 16)
        var len: Int32 = 0
        guard EVP_EncryptUpdate(ctx, &out, &len, zeros, Int32(count)) == 1 else { throw Failure() }
        return Array(out.prefix(Int(len)))
    }
}

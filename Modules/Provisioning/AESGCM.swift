import COpenSSL

/// AES-256-GCM (NIST SP 800-38D) through OpenSSL EVP: 12-byte nonce, 16-byte tag appended.
enum AESGCM {
    static func seal(_ plain: [UInt8], key: [UInt8], nonce: [UInt8], aad: [UInt8]) throws(ProvisioningError) -> [UInt8]
    {
        guard let ctx = EVP_CIPHER_CTX_new() else { throw ProvisioningError(.library, "EVP_CIPHER_CTX_new failed") }
        defer { EVP_CIPHER_CTX_free(ctx) }
        var out = [UInt8](repeating: 0, count: plain.count + 16)
        var length: Int32 = 0
        var tag = [UInt8](repeating: 0, count: 16)
        let ok =
            EVP_EncryptInit_ex(ctx, EVP_aes_256_gcm(), nil, key, nonce) == 1
            && EVP_EncryptUpdate(ctx, nil, &length, aad, Int32(aad.count)) == 1
            && EVP_EncryptUpdate(ctx, &out, &length, plain, Int32(plain.count)) == 1
            && out.withUnsafeMutableBufferPointer { buffer in
                var tail: Int32 = 0
                // `&out[i]` would point at a temporary copy of one element: use the buffer itself.
                return EVP_EncryptFinal_ex(ctx, buffer.baseAddress! + Int(length), &tail) == 1
            }
            && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, 16, &tag) == 1
        guard ok else { throw ProvisioningError(.library, "AES-256-GCM encryption failed in OpenSSL") }
        return Array(out.prefix(plain.count)) + tag
    }

    static func open(_ sealed: [UInt8], key: [UInt8], nonce: [UInt8], aad: [UInt8]) throws(ProvisioningError) -> [UInt8]
    {
        guard let ctx = EVP_CIPHER_CTX_new() else { throw ProvisioningError(.library, "EVP_CIPHER_CTX_new failed") }
        defer { EVP_CIPHER_CTX_free(ctx) }
        let body = Array(sealed.dropLast(16))
        var tag = Array(sealed.suffix(16))
        var out = [UInt8](repeating: 0, count: body.count + 16)
        var length: Int32 = 0
        guard EVP_DecryptInit_ex(ctx, EVP_aes_256_gcm(), nil, key, nonce) == 1,
            EVP_DecryptUpdate(ctx, nil, &length, aad, Int32(aad.count)) == 1,
            EVP_DecryptUpdate(ctx, &out, &length, body, Int32(body.count)) == 1,
            EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, 16, &tag) == 1
        else { throw ProvisioningError(.library, "AES-256-GCM decryption failed in OpenSSL") }
        let produced = Int(length)
        var finalLength: Int32 = 0
        let finalOK = out.withUnsafeMutableBufferPointer { buffer in
            EVP_DecryptFinal_ex(ctx, buffer.baseAddress! + produced, &finalLength) == 1
        }
        guard finalOK else {
            throw ProvisioningError(
                .wrongPassphrase,
                "wrong passphrase or key, the sealed password did not open (AES-256-GCM authentication failed)")
        }
        return Array(out.prefix(produced + Int(finalLength)))
    }
}

import COpenSSL
import SIPCore

/// The sealed caller of a wake push: AES-256-GCM (NIST SP 800-38D) through OpenSSL's EVP AEAD,
/// under the 32-byte call key the phone gave this gateway, with the call ID as associated data —
/// a blob opens only for the call it was made for, so it cannot be replayed for another call
/// (docs/wake-gateway.md "Sealed push", docs/adr/0150-sealed-push.md).
///
/// Blob = nonce (12) ‖ ciphertext (``paddedBytes``) ‖ tag (16): the layout of Python
/// `cryptography`'s `AESGCM` with the nonce in front. The nonce is 96 bits from the system CSPRNG
/// (``KeyMaterial``, never a seed): random nonces under one key stay below the 2⁻³² collision
/// bound of SP 800-38D §8.3 for far more than 2³² pushes. The plaintext is padded to one size
/// (content ‖ 0x80 ‖ 0x00…, the ISO/IEC 7816-4 delimiter) so every blob has the same length and
/// its length says nothing about the caller. Pure apart from OpenSSL and the CSPRNG.
public enum CallSeal {
    public static let keyBytes = 32
    public static let nonceBytes = 12
    public static let tagBytes = 16
    /// The padded plaintext: room for a caller of 383 bytes of JSON.
    public static let paddedBytes = 384
    /// Every blob's length (412 bytes; 550 characters of base64url).
    public static let blobBytes = nonceBytes + paddedBytes + tagBytes

    /// Seals `plaintext` (at most ``paddedBytes`` − 1 bytes) for `callID`. `nonce` is for test
    /// vectors only; the gateway always takes a fresh one.
    public static func seal(_ plaintext: [UInt8], key: [UInt8], callID: String, nonce: [UInt8]? = nil)
        throws(CallSealError) -> [UInt8]
    {
        guard key.count == keyBytes else { throw .badKey }
        guard plaintext.count < paddedBytes else { throw .tooLong }
        let iv = nonce ?? KeyMaterial.bytes(nonceBytes)
        guard iv.count == nonceBytes else { throw .badNonce }
        var padded = plaintext
        padded.append(0x80)
        padded += [UInt8](repeating: 0, count: paddedBytes - padded.count)
        guard let ctx = EVP_CIPHER_CTX_new() else { throw .crypto }
        defer { EVP_CIPHER_CTX_free(ctx) }
        let aad = Array(callID.utf8)
        var out = [UInt8](repeating: 0, count: paddedBytes + 16)
        var length: Int32 = 0
        var tag = [UInt8](repeating: 0, count: tagBytes)
        guard EVP_EncryptInit_ex(ctx, EVP_aes_256_gcm(), nil, key, iv) == 1,
            aad.isEmpty || EVP_EncryptUpdate(ctx, nil, &length, aad, Int32(aad.count)) == 1,
            EVP_EncryptUpdate(ctx, &out, &length, padded, Int32(padded.count)) == 1, length == Int32(paddedBytes),
            out.withUnsafeMutableBufferPointer({ EVP_EncryptFinal_ex(ctx, $0.baseAddress! + paddedBytes, &length) }) == 1,
            EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, Int32(tagBytes), &tag) == 1
        else { throw .crypto }
        return iv + out.prefix(paddedBytes) + tag
    }

    /// The plaintext of `blob` when it was sealed under `key` for `callID` and is unchanged;
    /// otherwise ``CallSealError/unopenable`` — one error for a changed call ID, nonce,
    /// ciphertext, tag or key (GCM cannot tell them apart, and a phone must not either).
    public static func open(_ blob: [UInt8], key: [UInt8], callID: String) throws(CallSealError) -> [UInt8] {
        guard key.count == keyBytes else { throw .badKey }
        guard blob.count == blobBytes else { throw .unopenable }
        guard let ctx = EVP_CIPHER_CTX_new() else { throw .crypto }
        defer { EVP_CIPHER_CTX_free(ctx) }
        let iv = Array(blob.prefix(nonceBytes))
        let body = Array(blob[nonceBytes..<(nonceBytes + paddedBytes)])
        var tag = Array(blob.suffix(tagBytes))
        let aad = Array(callID.utf8)
        var out = [UInt8](repeating: 0, count: paddedBytes + 16)
        var length: Int32 = 0
        guard EVP_DecryptInit_ex(ctx, EVP_aes_256_gcm(), nil, key, iv) == 1,
            aad.isEmpty || EVP_DecryptUpdate(ctx, nil, &length, aad, Int32(aad.count)) == 1,
            EVP_DecryptUpdate(ctx, &out, &length, body, Int32(body.count)) == 1,
            EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, Int32(tagBytes), &tag) == 1
        else { throw .crypto }
        let final = out.withUnsafeMutableBufferPointer { EVP_DecryptFinal_ex(ctx, $0.baseAddress! + paddedBytes, &length) }
        guard final == 1 else { throw .unopenable }
        let padded = out.prefix(paddedBytes)
        guard let delimiter = padded.lastIndex(where: { $0 != 0 }), padded[delimiter] == 0x80 else { throw .unopenable }
        return Array(padded[..<delimiter])
    }

    /// The opaque gateway hash of a push: HMAC-SHA-256 of the gateway's id under the call key,
    /// first 16 bytes, hex. The phone computes it for each gateway it joined; a provider sees a
    /// value that differs per phone, so it cannot tell which phones share a gateway.
    public static func gatewayHash(key: [UInt8], gatewayID: String) -> String {
        let mac = JWTCrypto.hmacSHA256(key: key, data: Array(("astra-gateway-hash\u{0}" + gatewayID).utf8))
        return SecureBytes.hex(Array(mac.prefix(16)))
    }
}

/// Why sealing or opening failed. Carries no key, caller or blob bytes.
public enum CallSealError: Error, Sendable, Hashable {
    /// The key is not 32 bytes.
    case badKey
    case badNonce
    /// The caller does not fit the padded size.
    case tooLong
    /// Changed call ID, nonce, ciphertext, tag or key, or not a blob of ``CallSeal/blobBytes``.
    case unopenable
    /// An OpenSSL call failed where it should not.
    case crypto
}

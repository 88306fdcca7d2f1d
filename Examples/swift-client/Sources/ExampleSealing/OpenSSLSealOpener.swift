import CCrypto
import PushKitEmu

/// The app's AES-256-GCM opener for sealed pushes, on OpenSSL's EVP AEAD (an iOS app calls
/// CryptoKit's `AES.GCM.open`): blob = nonce (12) ‖ ciphertext ‖ tag (16), the push's call ID as
/// associated data; nil for any failure — a changed byte, another call's blob, another key.
/// astra-pushsim seals with AES-256-GCM whenever it judges a client process, so the example's
/// executables serve their handler with this (docs/pushkit-emulator.md "Sealed pushes").
public struct OpenSSLSealOpener: SealOpener {
    public init() {}

    public var name: String { "aes-256-gcm" }

    public func open(_ blob: [UInt8], key: [UInt8], callID: String) -> [UInt8]? {
        guard key.count == 32, blob.count > 28, let ctx = EVP_CIPHER_CTX_new() else { return nil }
        defer { EVP_CIPHER_CTX_free(ctx) }
        let nonce = Array(blob.prefix(12))
        let body = Array(blob[12..<(blob.count - 16)])
        var tag = Array(blob.suffix(16))
        let aad = Array(callID.utf8)
        var out = [UInt8](repeating: 0, count: body.count + 16)
        var length: Int32 = 0
        guard EVP_DecryptInit_ex(ctx, EVP_aes_256_gcm(), nil, key, nonce) == 1,
            aad.isEmpty || EVP_DecryptUpdate(ctx, nil, &length, aad, Int32(aad.count)) == 1,
            EVP_DecryptUpdate(ctx, &out, &length, body, Int32(body.count)) == 1,
            EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, 16, &tag) == 1
        else { return nil }
        let plainCount = Int(length)
        var tail: Int32 = 0
        let verified = out.withUnsafeMutableBufferPointer { EVP_DecryptFinal_ex(ctx, $0.baseAddress! + plainCount, &tail) }
        guard verified == 1 else { return nil }
        // Padding: content ‖ 0x80 ‖ 0x00… (ISO/IEC 7816-4).
        let padded = out.prefix(plainCount)
        guard let end = padded.lastIndex(where: { $0 != 0 }), padded[end] == 0x80 else { return nil }
        return Array(padded[..<end])
    }
}

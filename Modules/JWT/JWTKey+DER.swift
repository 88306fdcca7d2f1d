import COpenSSL
import SIPCore

/// Public keys as DER `SubjectPublicKeyInfo` (RFC 5280 §4.1.2.7), the form a phone sends its
/// device key in (base64url in JSON, docs/wake-gateway.md "Sealed push"), and the key's id: the
/// SHA-256 of that DER, base64url — what a call grant's `kid` names (RFC 7515 §4.1.4).
extension JWTKey {
    /// A public key from SPKI DER: EC P-256 → ES256, RSA ≥ 2048 → RS256, else refused.
    public static func publicKey(spkiDER der: [UInt8]) throws(JWTError) -> JWTKey {
        guard !der.isEmpty, der.count <= 4_096 else { throw JWTError(.badKey, "not a DER public key") }
        let key = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var pointer: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PUBKEY(nil, &pointer, der.count)
        }
        guard let key else { throw JWTError(.badKey, "not a DER public key (SubjectPublicKeyInfo)") }
        return try typed(key, canSign: false)
    }

    /// The public key's SPKI DER (of the public half for a private key).
    public func spkiDER() throws(JWTError) -> [UInt8] {
        guard case .pkey(let key) = material else { throw JWTError(.badKey, "an HMAC secret has no public key") }
        var out: UnsafeMutablePointer<UInt8>?
        let length = i2d_PUBKEY(key, &out)
        guard length > 0, let out else { throw JWTError(.crypto, "public key export failed") }
        defer { CRYPTO_free(out, #fileID, #line) }
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }

    /// base64url(SHA-256(SPKI DER)): the device key's id in a grant's header.
    public func spkiThumbprint() throws(JWTError) -> String {
        Base64URL.encode(JWTCrypto.sha256(try spkiDER()))
    }
}

extension JWTCrypto {
    static func sha256(_ data: [UInt8]) -> [UInt8] {
        var md = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        _ = EVP_Digest(data, data.count, &md, &length, EVP_sha256(), nil)
        return md
    }
}

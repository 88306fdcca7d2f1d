import COpenSSL

/// The OpenSSL calls behind JWS signatures (RFC 7518 §3). No hand-written crypto: HMAC, ECDSA and
/// RSA are OpenSSL's; the only code here converts between JOSE's raw ECDSA `r ‖ s` and the DER
/// `ECDSA-Sig-Value` OpenSSL speaks (RFC 7518 §3.4).
enum JWTCrypto {
    static func hmacSHA256(key: [UInt8], data: [UInt8]) -> [UInt8] {
        var md = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        _ = HMAC(EVP_sha256(), key, Int32(key.count), data, data.count, &md, &length)
        return md
    }

    /// `EVP_DigestVerify` with SHA-256 over `data` (RSA keys: PKCS#1 v1.5 padding, OpenSSL's default).
    static func verify(_ key: OpaquePointer, data: [UInt8], derOrRawSignature signature: [UInt8]) -> Bool {
        guard let ctx = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(ctx) }
        guard EVP_DigestVerifyInit(ctx, nil, EVP_sha256(), nil, key) == 1 else { return false }
        return EVP_DigestVerify(ctx, signature, signature.count, data, data.count) == 1
    }

    /// `EVP_DigestSign` with SHA-256; DER for EC keys, the raw RSA signature for RSA keys.
    static func sign(_ key: OpaquePointer, data: [UInt8]) -> [UInt8]? {
        guard let ctx = EVP_MD_CTX_new() else { return nil }
        defer { EVP_MD_CTX_free(ctx) }
        guard EVP_DigestSignInit(ctx, nil, EVP_sha256(), nil, key) == 1 else { return nil }
        var length = 0
        guard EVP_DigestSign(ctx, nil, &length, data, data.count) == 1 else { return nil }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(ctx, &signature, &length, data, data.count) == 1 else { return nil }
        return Array(signature.prefix(length))
    }

    /// JOSE ES256 `r ‖ s` (32 + 32 bytes) → DER `ECDSA-Sig-Value`.
    static func derSignature(rawP256 raw: [UInt8]) -> [UInt8]? {
        guard raw.count == 64, let sig = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(sig) }
        guard let r = BN_bin2bn(raw, 32, nil) else { return nil }
        guard let s = raw.withUnsafeBufferPointer({ BN_bin2bn($0.baseAddress! + 32, 32, nil) }) else {
            BN_free(r)
            return nil
        }
        guard ECDSA_SIG_set0(sig, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        var out: UnsafeMutablePointer<UInt8>?
        let length = i2d_ECDSA_SIG(sig, &out)
        guard length > 0, let out else { return nil }
        defer { CRYPTO_free(out, #fileID, #line) }
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }

    /// DER `ECDSA-Sig-Value` → JOSE `r ‖ s` (each left-padded to 32 bytes).
    static func rawP256Signature(der: [UInt8]) -> [UInt8]? {
        der.withUnsafeBufferPointer { buffer -> [UInt8]? in
            var pointer: UnsafePointer<UInt8>? = buffer.baseAddress
            guard let sig = d2i_ECDSA_SIG(nil, &pointer, der.count) else { return nil }
            defer { ECDSA_SIG_free(sig) }
            var raw = [UInt8](repeating: 0, count: 64)
            guard BN_bn2binpad(ECDSA_SIG_get0_r(sig), &raw, 32) == 32 else { return nil }
            let ok = raw.withUnsafeMutableBufferPointer { BN_bn2binpad(ECDSA_SIG_get0_s(sig), $0.baseAddress! + 32, 32) }
            return ok == 32 ? raw : nil
        }
    }
}

import COpenSSL
import SIPCore

/// The secret a sealed password is opened with: a passphrase, or the bytes of a key file.
public enum SealKey: Sendable {
    case passphrase(String)
    case keyFile([UInt8])

    /// The KDF used when sealing with this kind of key and none is asked for.
    public var defaultKDF: SealKDF {
        switch self {
        case .passphrase: .scrypt(logN: 15, r: 8, p: 1)
        case .keyFile: .hkdfSHA256
        }
    }

    var material: [UInt8] {
        switch self {
        case .passphrase(let s): Array(s.utf8)
        case .keyFile(let bytes): bytes
        }
    }
}

/// How the AES key is derived from the ``SealKey``. Parameters travel in the sealed string.
public enum SealKDF: Sendable, Hashable {
    /// RFC 7914 scrypt, N = 2^logN (default 2^15, r 8, p 1: ~32 MiB, OWASP 2023 minimum).
    case scrypt(logN: Int, r: Int, p: Int)
    /// RFC 8018 PBKDF2-HMAC-SHA256 (OWASP 2023: 600 000 iterations).
    case pbkdf2SHA256(iterations: Int)
    /// RFC 5869 HKDF-SHA256 — for high-entropy key files only, not passphrases.
    case hkdfSHA256

    var name: String {
        switch self {
        case .scrypt: "scrypt"
        case .pbkdf2SHA256: "pbkdf2-sha256"
        case .hkdfSHA256: "hkdf-sha256"
        }
    }

    var parameters: String {
        switch self {
        case .scrypt(let logN, let r, let p): "ln=\(logN),r=\(r),p=\(p)"
        case .pbkdf2SHA256(let i): "i=\(i)"
        case .hkdfSHA256: "-"
        }
    }
}

/// Seals a SIP password into a compact string and opens it again (docs/provisioning.md
/// "Sealed passwords"): `$s1$KDF$PARAMS$SALT$NONCE$CIPHERTEXT‖TAG`, base64url fields,
/// AES-256-GCM (NIST SP 800-38D) via OpenSSL EVP, 16-byte salt, 12-byte nonce, 16-byte tag.
///
/// The associated data is the header up to the nonce plus the line's `user@domain`, so the
/// KDF parameters cannot be altered and a sealed password cannot be moved to another line.
public enum PasswordSeal {
    /// The marker every sealed string starts with.
    public static let prefix = "$s1$"

    /// What a phone can afford to open a code (docs/provisioning.md "Cost bounds"), checked
    /// before any derivation so a hostile code cannot make us burn memory or minutes: scrypt
    /// memory 128·r·N ≤ 64 MiB, p ≤ 4, and work N·r·p ≤ 2^20 (4× the default ln=15, r=8, p=1,
    /// ~0.1 s here); PBKDF2 at most 2,000,000 iterations (OWASP 2023 asks 600,000).
    static let maxScryptMemory = 64 << 20, maxScryptWork = 1 << 20, maxP = 4, maxIterations = 2_000_000

    /// Seals `password` for the line identified by `context` (`user@domain`).
    public static func seal(
        _ password: String, key: SealKey, kdf: SealKDF? = nil, context: String,
        random: (Int) -> [UInt8] = PasswordSeal.secureRandom
    ) throws(ProvisioningError) -> String {
        let kdf = kdf ?? key.defaultKDF
        try check(kdf)
        let salt = random(16)
        let nonce = random(12)
        let header =
            prefix + kdf.name + "$" + kdf.parameters + "$" + Base64URL.encode(salt) + "$"
            + Base64URL.encode(nonce)
        let aesKey = try deriveKey(key, kdf: kdf, salt: salt)
        let sealed = try AESGCM.seal(
            Array(password.utf8), key: aesKey, nonce: nonce,
            aad: Array((header + "\n" + context).utf8))
        return header + "$" + Base64URL.encode(sealed)
    }

    /// Opens a sealed string; a wrong key or a changed byte is ``ProvisioningError/Code/wrongPassphrase``.
    public static func open(_ sealed: String, key: SealKey, context: String) throws(ProvisioningError) -> String {
        let parts = sealed.split(separator: "$", omittingEmptySubsequences: false)
        // "", "s1", kdf, params, salt, nonce, ct
        guard parts.count == 7, parts[0].isEmpty, parts[1] == "s1" else {
            if parts.count > 2, parts[0].isEmpty, parts[1] != "s1", parts[1].hasPrefix("s") {
                throw ProvisioningError(.unsupportedPayload, "sealed password version \(parts[1]) is not supported")
            }
            throw ProvisioningError(.badSeal, "sealed password is malformed (expected $s1$KDF$PARAMS$SALT$NONCE$DATA)")
        }
        let kdf = try parseKDF(name: String(parts[2]), parameters: String(parts[3]))
        try check(kdf)
        guard let salt = Base64URL.decode(parts[4]), salt.count >= 8,
            let nonce = Base64URL.decode(parts[5]), nonce.count == 12,
            let data = Base64URL.decode(parts[6]), data.count >= 16
        else { throw ProvisioningError(.badSeal, "sealed password has a bad salt, nonce or ciphertext") }
        let header = parts[0..<6].joined(separator: "$")
        let aesKey = try deriveKey(key, kdf: kdf, salt: salt)
        let plain = try AESGCM.open(data, key: aesKey, nonce: nonce, aad: Array((header + "\n" + context).utf8))
        guard let text = String(validating: plain, as: UTF8.self) else {
            throw ProvisioningError(.badSeal, "sealed password is not UTF-8 text")
        }
        return text
    }

    static func parseKDF(name: String, parameters: String) throws(ProvisioningError) -> SealKDF {
        var values: [String: Int] = [:]
        for pair in parameters.split(separator: ",") where pair != "-" {
            let kv = pair.split(separator: "=", maxSplits: 1)
            guard kv.count == 2, let v = Int(kv[1]) else {
                throw ProvisioningError(.badSeal, "sealed password has bad KDF parameters \"\(parameters)\"")
            }
            values[String(kv[0])] = v
        }
        switch name {
        case "scrypt":
            guard let ln = values["ln"], let r = values["r"], let p = values["p"] else {
                throw ProvisioningError(.badSeal, "scrypt needs ln, r and p")
            }
            return .scrypt(logN: ln, r: r, p: p)
        case "pbkdf2-sha256":
            guard let i = values["i"] else { throw ProvisioningError(.badSeal, "pbkdf2-sha256 needs i") }
            return .pbkdf2SHA256(iterations: i)
        case "hkdf-sha256":
            return .hkdfSHA256
        default:
            throw ProvisioningError(.badSeal, "unknown KDF \"\(name)\" (scrypt, pbkdf2-sha256, hkdf-sha256)")
        }
    }

    static func check(_ kdf: SealKDF) throws(ProvisioningError) {
        switch kdf {
        case .scrypt(let logN, let r, let p):
            guard (10...20).contains(logN), (1...32).contains(r), (1...maxP).contains(p),
                128 * r << logN <= maxScryptMemory, (r * p) << logN <= maxScryptWork
            else {
                throw ProvisioningError(
                    .badSeal,
                    "scrypt cost ln=\(logN),r=\(r),p=\(p) is over the bounds a phone can afford "
                        + "(memory 128·r·2^ln ≤ 64 MiB, p ≤ \(maxP), 2^ln·r·p ≤ 2^20)")
            }
        case .pbkdf2SHA256(let i):
            guard (10_000...maxIterations).contains(i) else {
                throw ProvisioningError(.badSeal, "pbkdf2 iterations \(i) out of bounds (10000…2000000)")
            }
        case .hkdfSHA256: break
        }
    }

    /// 32 bytes for AES-256 from the key material.
    static func deriveKey(_ key: SealKey, kdf: SealKDF, salt: [UInt8]) throws(ProvisioningError) -> [UInt8] {
        let material = key.material.map { CChar(bitPattern: $0) }
        var out = [UInt8](repeating: 0, count: 32)
        let ok: Bool
        switch kdf {
        case .scrypt(let logN, let r, let p):
            // check(_:) bounded 128·r·N to 64 MiB; OpenSSL also needs 128·r·p for B.
            let maxMem = UInt64(128 * r) << UInt64(logN) + UInt64(128 * r * p) + (1 << 20)
            ok =
                EVP_PBE_scrypt(
                    material, material.count, salt, salt.count, UInt64(1) << UInt64(logN), UInt64(r),
                    UInt64(p), maxMem, &out, out.count) == 1
        case .pbkdf2SHA256(let iterations):
            ok =
                PKCS5_PBKDF2_HMAC(
                    material, Int32(material.count), salt, Int32(salt.count), Int32(iterations),
                    EVP_sha256(), Int32(out.count), &out) == 1
        case .hkdfSHA256:
            // RFC 5869 §2.2 extract, then §2.3 expand to one block with info "astra-qr seal v1".
            let prk = hmacSHA256(key: salt, data: key.material)
            out = hmacSHA256(key: prk, data: Array("astra-qr seal v1".utf8) + [1])
            ok = out.count == 32
        }
        guard ok else { throw ProvisioningError(.library, "key derivation (\(kdf.name)) failed in OpenSSL") }
        return out
    }

    static func hmacSHA256(key: [UInt8], data: [UInt8]) -> [UInt8] {
        var md = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        _ = HMAC(EVP_sha256(), key, Int32(key.count), data, data.count, &md, &length)
        return Array(md.prefix(Int(length)))
    }

    /// `count` bytes from the system CSPRNG (`KeyMaterial`, the one source of key material).
    public static func secureRandom(_ count: Int) -> [UInt8] { KeyMaterial.bytes(count) }
}

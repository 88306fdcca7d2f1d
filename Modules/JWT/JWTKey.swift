import COpenSSL
import SIPCore
import Glibc

/// A key a ``JWTVerifier`` checks signatures with, or a ``JWTSigner`` signs with. The key fixes
/// the algorithm (RFC 8725 §3.1): an HMAC secret only ever verifies HS256, a P-256 key ES256, an
/// RSA key RS256 — a token cannot talk the verifier into using a public key as an HMAC secret.
public final class JWTKey: @unchecked Sendable {
    enum Material {
        case secret([UInt8])
        /// An `EVP_PKEY` (public, or private for signing), freed in deinit.
        case pkey(OpaquePointer)
    }

    public let algorithm: JWTAlgorithm
    let material: Material
    /// Whether this key can sign (an HMAC secret or a private key).
    public let canSign: Bool
    /// The key's `kid` (RFC 7515 §4.1.4): a signer puts it in the header, a verifier holding keys
    /// with ids picks the key by it (key rotation; APNs' 10-character key id). nil = no id.
    public let keyID: String?

    private init(algorithm: JWTAlgorithm, material: Material, canSign: Bool, keyID: String? = nil) {
        self.algorithm = algorithm
        self.material = material
        self.canSign = canSign
        self.keyID = keyID
    }

    /// The same key material under `keyID` (the OpenSSL key is shared, reference-counted).
    public func identified(as keyID: String?) -> JWTKey {
        switch material {
        case .secret(let bytes):
            return JWTKey(algorithm: algorithm, material: .secret(bytes), canSign: canSign, keyID: keyID)
        case .pkey(let key):
            EVP_PKEY_up_ref(key)
            return JWTKey(algorithm: algorithm, material: .pkey(key), canSign: canSign, keyID: keyID)
        }
    }

    /// The public half of a private key (a verifier for what this key signs).
    public func publicHalf() throws(JWTError) -> JWTKey {
        switch material {
        case .secret:
            return self
        case .pkey(let key):
            guard let bio = BIO_new(BIO_s_mem()) else { throw JWTError(.crypto, "BIO_new failed") }
            defer { BIO_free(bio) }
            guard PEM_write_bio_PUBKEY(bio, key) == 1 else { throw JWTError(.crypto, "public key export failed") }
            var data: UnsafeMutablePointer<CChar>?
            let length = astra_BIO_get_mem_data(bio, &data)
            guard length > 0, let data else { throw JWTError(.crypto, "public key export failed") }
            let pem = data.withMemoryRebound(to: UInt8.self, capacity: length) {
                Array(UnsafeBufferPointer(start: $0, count: length))
            }
            return try Self.publicKey(pem: pem).identified(as: keyID)
        }
    }

    deinit {
        if case .pkey(let key) = material { EVP_PKEY_free(key) }
    }

    /// Smallest HS256 secret accepted (RFC 7518 §3.2: a key of the hash's size, 256 bits).
    public static let minimumSecretBytes = 32

    /// An HS256 secret. Refused when shorter than 32 bytes.
    public static func hmac(secret: [UInt8]) throws(JWTError) -> JWTKey {
        guard secret.count >= minimumSecretBytes else {
            throw JWTError(.badKey, "HS256 secret of \(secret.count) bytes; at least \(minimumSecretBytes) needed")
        }
        return JWTKey(algorithm: .hs256, material: .secret(secret), canSign: true)
    }

    /// An HS256 secret from a file: its bytes, without one trailing newline (so `openssl rand
    /// -hex 32 > FILE` works as well as raw bytes).
    public static func hmac(secretFile path: String) throws(JWTError) -> JWTKey {
        var bytes = try readKeyFile(path)
        if bytes.last == 10 { bytes.removeLast() }
        if bytes.last == 13 { bytes.removeLast() }
        return try hmac(secret: bytes)
    }

    /// A public key in PEM (`-----BEGIN PUBLIC KEY-----`, SubjectPublicKeyInfo): EC P-256 → ES256,
    /// RSA ≥ 2048 bits → RS256; anything else is refused.
    public static func publicKey(pem: [UInt8]) throws(JWTError) -> JWTKey {
        guard let key = readPEM(pem, isPrivate: false) else {
            throw JWTError(.badKey, "not a PEM public key (SubjectPublicKeyInfo)")
        }
        return try typed(key, canSign: false)
    }

    /// A private key in PEM (PKCS#8 or traditional): for signing (tests, dev mode, provider tokens).
    public static func privateKey(pem: [UInt8]) throws(JWTError) -> JWTKey {
        guard let key = readPEM(pem, isPrivate: true) else {
            throw JWTError(.badKey, "not an unencrypted PEM private key")
        }
        return try typed(key, canSign: true)
    }

    /// A fresh private key from OpenSSL's CSPRNG: P-256 for ES256, RSA-2048 for RS256 (a dev
    /// provider key for the loopback push emulator; never from a seed).
    public static func generate(_ algorithm: JWTAlgorithm, keyID: String? = nil) throws(JWTError) -> JWTKey {
        switch algorithm {
        case .hs256:
            return try hmac(secret: KeyMaterial.bytes(32)).identified(as: keyID)
        case .es256, .rs256:
            guard let ctx = EVP_PKEY_CTX_new_from_name(nil, algorithm == .es256 ? "EC" : "RSA", nil) else {
                throw JWTError(.crypto, "EVP_PKEY_CTX_new_from_name failed")
            }
            defer { EVP_PKEY_CTX_free(ctx) }
            guard EVP_PKEY_keygen_init(ctx) == 1 else { throw JWTError(.crypto, "keygen init failed") }
            let configured =
                algorithm == .es256
                ? EVP_PKEY_CTX_set_group_name(ctx, "P-256") : EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, 2_048)
            var key: OpaquePointer?
            guard configured == 1, EVP_PKEY_generate(ctx, &key) == 1, let key else {
                throw JWTError(.crypto, "\(algorithm.rawValue) key generation failed")
            }
            return try typed(key, canSign: true).identified(as: keyID)
        }
    }

    /// The private key in PKCS#8 PEM (a dev service-account file for the emulator; never logged).
    public func privateKeyPEM() throws(JWTError) -> String {
        guard canSign, case .pkey(let key) = material else { throw JWTError(.badKey, "not a private key") }
        guard let bio = BIO_new(BIO_s_mem()) else { throw JWTError(.crypto, "BIO_new failed") }
        defer { BIO_free(bio) }
        guard PEM_write_bio_PrivateKey(bio, key, nil, nil, 0, nil, nil) == 1 else {
            throw JWTError(.crypto, "private key export failed")
        }
        var data: UnsafeMutablePointer<CChar>?
        let length = astra_BIO_get_mem_data(bio, &data)
        guard length > 0, let data else { throw JWTError(.crypto, "private key export failed") }
        return data.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
    }

    public static func publicKey(file path: String) throws(JWTError) -> JWTKey {
        try publicKey(pem: try readKeyFile(path))
    }

    public static func privateKey(file path: String) throws(JWTError) -> JWTKey {
        try privateKey(pem: try readKeyFile(path))
    }

    static func typed(_ key: OpaquePointer, canSign: Bool) throws(JWTError) -> JWTKey {
        switch EVP_PKEY_get_base_id(key) {
        case EVP_PKEY_EC:
            var name = [CChar](repeating: 0, count: 64)
            var length = 0
            guard EVP_PKEY_get_group_name(key, &name, name.count, &length) == 1,
                String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self) == "prime256v1"
            else {
                EVP_PKEY_free(key)
                throw JWTError(.badKey, "EC key is not on P-256 (ES256 needs prime256v1)")
            }
            return JWTKey(algorithm: .es256, material: .pkey(key), canSign: canSign)
        case EVP_PKEY_RSA:
            let bits = EVP_PKEY_get_bits(key)
            guard bits >= 2_048 else {
                EVP_PKEY_free(key)
                throw JWTError(.badKey, "RSA key of \(bits) bits; RS256 needs at least 2048")
            }
            return JWTKey(algorithm: .rs256, material: .pkey(key), canSign: canSign)
        default:
            EVP_PKEY_free(key)
            throw JWTError(.badKey, "key type is neither EC P-256 nor RSA")
        }
    }

    private static func readPEM(_ pem: [UInt8], isPrivate: Bool) -> OpaquePointer? {
        pem.withUnsafeBytes { raw -> OpaquePointer? in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return isPrivate ? PEM_read_bio_PrivateKey(bio, nil, nil, nil) : PEM_read_bio_PUBKEY(bio, nil, nil, nil)
        }
    }

    /// Key files are small: anything over 64 KiB (or not a regular file's worth, /dev/zero) is refused.
    static let maxKeyFileBytes = 65_536

    /// A small file's bytes (≤ 64 KiB; /dev/zero and directories refused): keys, service accounts.
    public static func readKeyFile(_ path: String) throws(JWTError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw JWTError(.badKey, "\(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4_096)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw JWTError(.badKey, "\(path): \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            bytes += chunk[0..<n]
            guard bytes.count <= maxKeyFileBytes else {
                throw JWTError(.badKey, "\(path): over \(maxKeyFileBytes) bytes, not a key file")
            }
        }
        guard !bytes.isEmpty else { throw JWTError(.badKey, "\(path): empty") }
        return bytes
    }
}

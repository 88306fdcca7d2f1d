import COpenSSL
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

    private init(algorithm: JWTAlgorithm, material: Material, canSign: Bool) {
        self.algorithm = algorithm
        self.material = material
        self.canSign = canSign
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

    public static func publicKey(file path: String) throws(JWTError) -> JWTKey {
        try publicKey(pem: try readKeyFile(path))
    }

    public static func privateKey(file path: String) throws(JWTError) -> JWTKey {
        try privateKey(pem: try readKeyFile(path))
    }

    private static func typed(_ key: OpaquePointer, canSign: Bool) throws(JWTError) -> JWTKey {
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

    static func readKeyFile(_ path: String) throws(JWTError) -> [UInt8] {
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

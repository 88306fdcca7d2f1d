import COpenSSL

/// The three hash functions of SIP/HTTP digest (RFC 7616 §3.3, RFC 8760 §2), over OpenSSL.
///
/// `sha512_256` is the real FIPS 180-4 SHA-512/256 (its own initial values), OpenSSL's
/// "SHA512-256" — *not* SHA-512 truncated. RFC 7616 §3.9.2 prints values computed with the
/// truncation (erratum 4897); we match FIPS 180-4. `package` access: the public digest API
/// never needs it, other AstraSIP modules may.
package enum DigestHash: Sendable, Hashable, CaseIterable {
    /// MD5 (RFC 1321): 32 hex digits.
    case md5
    /// SHA-256 (FIPS 180-4): 64 hex digits.
    case sha256
    /// SHA-512/256 (FIPS 180-4 §5.3.6.2): 64 hex digits.
    case sha512_256

    /// The OpenSSL 3 fetch name.
    var openSSLName: String {
        switch self {
        case .md5: "MD5"
        case .sha256: "SHA256"
        case .sha512_256: "SHA512-256"
        }
    }

    /// Digest size in bytes.
    package var byteCount: Int {
        switch self {
        case .md5: 16
        case .sha256, .sha512_256: 32
        }
    }

    /// Lower-case hex of the hash of `bytes` (used for H(entity-body), RFC 7616 §3.4.3).
    package func hex(_ bytes: [UInt8]) throws(DigestError) -> String {
        var hasher = try DigestHasher(self)
        hasher.update(bytes)
        return try hasher.finalizeHex()
    }

    /// Lower-case hex of the hash of the UTF-8 of `text`.
    package func hex(_ text: String) throws(DigestError) -> String {
        var hasher = try DigestHasher(self)
        hasher.update(text)
        return try hasher.finalizeHex()
    }

    /// The fetched `EVP_MD` for SHA-512/256 (MD5 and SHA-256 use the low-level functions,
    /// ``DigestHasher``), once per process; nil for the others or when the provider lacks it.
    var evpMD: OpaquePointer? { self == .sha512_256 ? fetchedSHA512_256 : nil }
}

// Fetched once (Swift globals initialise lazily and thread-safely), only when a server asks for
// SHA-512/256; an EVP_MD is immutable and safe to share between threads (OpenSSL 3 "Algorithm
// fetching"). Never freed: process lifetime.
nonisolated(unsafe) private let fetchedSHA512_256: OpaquePointer? = EVP_MD_fetch(nil, "SHA512-256", nil)

import COpenSSL
import SIPCore

/// A per-session self-signed ECDSA P-256 certificate (RFC 5763 §5: self-signed is expected,
/// the SDP fingerprint authenticates it) and its `sha-256` fingerprint (RFC 8122 §5).
///
/// Immutable after creation; OpenSSL objects are reference-counted and only read.
public final class DTLSCertificate: @unchecked Sendable {
    let key: OpaquePointer
    let x509: OpaquePointer
    /// `a=fingerprint:sha-256 …` of the DER certificate.
    public let fingerprint: CertificateFingerprint

    /// Generates the key pair and certificate (CN `commonName`, valid from one day ago for
    /// `days`, random 63-bit serial).
    public init(commonName: String = "AstraSIP", days: Int = 30) throws(DTLSError) {
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            throw DTLSError(.setupFailed, "EVP_PKEY_CTX_new_from_name(EC)")
        }
        defer { EVP_PKEY_CTX_free(ctx) }
        var pkey: OpaquePointer?
        guard EVP_PKEY_keygen_init(ctx) == 1, EVP_PKEY_CTX_set_group_name(ctx, "P-256") == 1,
            EVP_PKEY_generate(ctx, &pkey) == 1, let pkey
        else { throw DTLSError(.setupFailed, "P-256 key generation: \(DTLSTransport.opensslError())") }
        guard let x = X509_new() else {
            EVP_PKEY_free(pkey)
            throw DTLSError(.setupFailed, "X509_new")
        }
        let serial = KeyMaterial.bytes(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let ok =
            X509_set_version(x, 2) == 1
            && ASN1_INTEGER_set(X509_get_serialNumber(x), Int(serial & 0x7FFF_FFFF_FFFF_FFFF)) == 1
            && X509_gmtime_adj(X509_getm_notBefore(x), -86400) != nil
            && X509_gmtime_adj(X509_getm_notAfter(x), days * 86400) != nil
            && X509_set_pubkey(x, pkey) == 1
            && X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN", MBSTRING_ASC, commonName, -1, -1, 0) == 1
            && X509_set_issuer_name(x, X509_get_subject_name(x)) == 1
            && X509_sign(x, pkey, EVP_sha256()) > 0
        guard ok else {
            X509_free(x)
            EVP_PKEY_free(pkey)
            throw DTLSError(.setupFailed, "self-signed certificate: \(DTLSTransport.opensslError())")
        }
        key = pkey
        x509 = x
        fingerprint = CertificateFingerprint(hashFunction: "sha-256", bytes: Self.digest(x))
    }

    deinit {
        X509_free(x509)
        EVP_PKEY_free(key)
    }

    /// SHA-256 of the DER encoding (RFC 8122 §5).
    static func digest(_ certificate: OpaquePointer) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        _ = out.withUnsafeMutableBufferPointer { X509_digest(certificate, EVP_sha256(), $0.baseAddress, &length) }
        return Array(out.prefix(Int(length)))
    }
}

import COpenSSL
import TLSMemory

/// The certificate and private key a TLS server presents: read from PEM files (a production
/// identity, or one made with `openssl req`), or generated in memory for a loopback emulator — an
/// ECDSA P-256 key and a self-signed certificate whose subjectAltName names the addresses it is
/// reached at (RFC 6125 §6.4.4: a client checks an IP address against `iPAddress` entries, never
/// the CN). ``certificatePEM`` is what a client trusts (`curl --cacert`, ``HTTP2Client``).
///
/// Immutable after creation; the OpenSSL objects are only read (reference-counted by the contexts
/// that use them).
public final class TLSServerIdentity: @unchecked Sendable {
    let certificate: OpaquePointer
    let key: OpaquePointer
    /// Intermediate certificates sent after the leaf (from a chain file).
    let chain: [OpaquePointer]
    /// The leaf certificate in PEM: hand it to clients of a self-signed identity as their CA.
    public let certificatePEM: [UInt8]

    private init(certificate: OpaquePointer, key: OpaquePointer, chain: [OpaquePointer]) throws(HTTP2Error) {
        guard X509_check_private_key(certificate, key) == 1 else {
            X509_free(certificate)
            EVP_PKEY_free(key)
            for c in chain { X509_free(c) }
            throw HTTP2Error(.tls, "the private key does not match the certificate")
        }
        self.certificate = certificate
        self.key = key
        self.chain = chain
        certificatePEM = Self.pem(certificate)
    }

    deinit {
        X509_free(certificate)
        EVP_PKEY_free(key)
        for c in chain { X509_free(c) }
    }

    /// A PEM certificate chain file (leaf first) and an unencrypted PEM private key file.
    public static func files(certificate certificatePath: String, key keyPath: String) throws(HTTP2Error)
        -> TLSServerIdentity
    {
        let certificates = try readPEM(certificatePath) { bio in
            var out: [OpaquePointer] = []
            while let x = PEM_read_bio_X509(bio, nil, nil, nil) { out.append(x) }
            ERR_clear_error()  // the loop ends on "no start line"
            return out
        }
        guard let leaf = certificates.first else {
            throw HTTP2Error(.tls, "\(certificatePath): no PEM certificate")
        }
        let keys = try readPEM(keyPath) { bio in PEM_read_bio_PrivateKey(bio, nil, nil, nil).map { [$0] } ?? [] }
        guard let key = keys.first else {
            for c in certificates { X509_free(c) }
            throw HTTP2Error(.tls, "\(keyPath): not an unencrypted PEM private key")
        }
        return try TLSServerIdentity(certificate: leaf, key: key, chain: Array(certificates.dropFirst()))
    }

    /// A fresh P-256 key and a self-signed certificate for `ipAddresses` and `dnsNames`, valid
    /// from an hour ago for `days`. The key comes from OpenSSL's CSPRNG and never leaves memory.
    public static func ephemeral(
        commonName: String = "AstraSIP push provider emulator", ipAddresses: [String] = ["127.0.0.1"],
        dnsNames: [String] = ["localhost"], days: Int = 7
    ) throws(HTTP2Error) -> TLSServerIdentity {
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            throw HTTP2Error(.tls, "EVP_PKEY_CTX_new_from_name(EC) failed")
        }
        defer { EVP_PKEY_CTX_free(ctx) }
        var generated: OpaquePointer?
        guard EVP_PKEY_keygen_init(ctx) == 1, EVP_PKEY_CTX_set_group_name(ctx, "P-256") == 1,
            EVP_PKEY_generate(ctx, &generated) == 1, let key = generated
        else { throw HTTP2Error(.tls, "P-256 key generation failed: \(OpenSSLError.last())") }
        guard let x = X509_new() else {
            EVP_PKEY_free(key)
            throw HTTP2Error(.tls, "X509_new failed")
        }
        var serial: UInt64 = 0
        _ = withUnsafeMutableBytes(of: &serial) { RAND_bytes($0.baseAddress, 8) }
        let names = (ipAddresses.map { "IP:" + $0 } + dnsNames.map { "DNS:" + $0 }).joined(separator: ",")
        var v3 = X509V3_CTX()
        X509V3_set_ctx(&v3, x, x, nil, nil, 0)
        let san = X509V3_EXT_conf_nid(nil, &v3, NID_subject_alt_name, names)
        defer { X509_EXTENSION_free(san) }
        let ok =
            san != nil
            && X509_set_version(x, 2) == 1
            && ASN1_INTEGER_set(X509_get_serialNumber(x), Int(serial & 0x7FFF_FFFF_FFFF_FFFF)) == 1
            && X509_gmtime_adj(X509_getm_notBefore(x), -3_600) != nil
            && X509_gmtime_adj(X509_getm_notAfter(x), days * 86_400) != nil
            && X509_set_pubkey(x, key) == 1
            && X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN", MBSTRING_ASC, commonName, -1, -1, 0) == 1
            && X509_set_issuer_name(x, X509_get_subject_name(x)) == 1
            && X509_add_ext(x, san, -1) == 1
            && X509_sign(x, key, EVP_sha256()) > 0
        guard ok else {
            X509_free(x)
            EVP_PKEY_free(key)
            throw HTTP2Error(.tls, "self-signed certificate: \(OpenSSLError.last())")
        }
        return try TLSServerIdentity(certificate: x, key: key, chain: [])
    }

    private static func readPEM(_ path: String, _ read: (OpaquePointer) -> [OpaquePointer]) throws(HTTP2Error)
        -> [OpaquePointer]
    {
        guard let bio = BIO_new_file(path, "r") else {
            ERR_clear_error()
            throw HTTP2Error(.tls, "\(path): cannot be read")
        }
        defer { BIO_free(bio) }
        return read(bio)
    }

    static func pem(_ certificate: OpaquePointer) -> [UInt8] {
        guard let bio = BIO_new(BIO_s_mem()) else { return [] }
        defer { BIO_free(bio) }
        guard PEM_write_bio_X509(bio, certificate) == 1 else { return [] }
        var data: UnsafeMutablePointer<CChar>?
        let length = astra_BIO_get_mem_data(bio, &data)
        guard length > 0, let data else { return [] }
        return data.withMemoryRebound(to: UInt8.self, capacity: length) { Array(UnsafeBufferPointer(start: $0, count: length)) }
    }
}

import COpenSSL
import Glibc
import Synchronization

/// The certificate chains one ``TLSClientContext`` has verified, by the SHA-256 of the exact
/// certificates the server sent, with the time window in which every certificate of the built
/// chain (trust anchor included) is valid. Pure: the time is a parameter.
///
/// Why a hit may skip chain verification (docs/decisions.md D48): verifying a chain is a function
/// of the certificates sent, the trust store, the verification settings and the time. The trust
/// store and the settings are the context's, fixed at its creation (no CRLs, no callback that
/// could change an answer); the certificates are named by a collision-resistant digest of all
/// their DER bytes in order; the time is checked on every hit against the window of the chain
/// that verified. What differs between connections is checked on every connection: the name
/// (``VerifiedChainCache/verify(_:_:)`` checks the host or IP address on a hit as
/// `X509_verify_cert` would), and the TLS 1.3 CertificateVerify (or TLS 1.2 ServerKeyExchange)
/// signature, which OpenSSL checks after this step with the leaf's key on every handshake, so each
/// server still proves it holds the private key, over a transcript that includes the client's
/// fresh random. No TLS session is reused (D41): only the answer to "does this chain lead to a
/// trusted root" is remembered.
struct VerifiedChains: Sendable {
    struct Entry: Sendable {
        let digest: [UInt8]
        /// Seconds since the epoch: the latest notBefore and the earliest notAfter of the chain.
        let validFrom: Int
        let validUntil: Int
    }

    /// A load run meets a handful of servers; a bounded list keeps a hostile one from growing it.
    static let capacity = 16

    private(set) var entries: [Entry] = []

    /// True when `digest` verified before and `now` is inside its chain's validity.
    func contains(_ digest: [UInt8], at now: Int) -> Bool {
        entries.contains { $0.digest == digest && $0.validFrom <= now && now <= $0.validUntil }
    }

    /// Remembers a chain that verified; the oldest entry goes when the list is full.
    mutating func insert(_ entry: Entry) {
        entries.removeAll { $0.digest == entry.digest }
        if entries.count >= Self.capacity { entries.removeFirst() }
        entries.append(entry)
    }
}

/// The shell around ``VerifiedChains``: OpenSSL's certificate verification callback
/// (`SSL_CTX_set_cert_verify_callback`) of one client context. A miss runs `X509_verify_cert`
/// unchanged (chain, trust, purpose, validity, name) and remembers a success.
final class VerifiedChainCache: Sendable {
    private let chains = Mutex(VerifiedChains())
    private let hitCount = Atomic<Int>(0)

    /// Handshakes whose chain was found remembered (the name then checked), for tests.
    var hits: Int { hitCount.load(ordering: .relaxed) }

    /// Installs the callback on `ctx`; `self` must outlive the context's handshakes (the
    /// ``TLSClientContext`` that owns both frees the context first).
    func install(on ctx: OpaquePointer) {
        SSL_CTX_set_cert_verify_callback(ctx, { store, arg in
            guard let store, let arg else { return 0 }
            return Unmanaged<VerifiedChainCache>.fromOpaque(arg).takeUnretainedValue().verify(store)
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// The callback: 1 when the chain is trusted for the name asked, else 0 with the
    /// store context's error set (as `X509_verify_cert` leaves it).
    func verify(_ store: OpaquePointer) -> Int32 {
        guard let digest = Self.digest(of: X509_STORE_CTX_get0_untrusted(store)) else {
            return X509_verify_cert(store) > 0 ? 1 : 0
        }
        let now = Int(time(nil))
        if chains.withLock({ $0.contains(digest, at: now) }) {
            guard let leaf = X509_STORE_CTX_get0_cert(store) else { return X509_verify_cert(store) > 0 ? 1 : 0 }
            hitCount.add(1, ordering: .relaxed)
            if let error = Self.nameError(leaf, X509_STORE_CTX_get0_param(store)) {
                X509_STORE_CTX_set_current_cert(store, leaf)
                X509_STORE_CTX_set_error(store, error)
                return 0
            }
            X509_STORE_CTX_set_error(store, X509_V_OK)
            return 1
        }
        guard X509_verify_cert(store) > 0 else { return 0 }
        if let window = Self.validity(of: X509_STORE_CTX_get0_chain(store)) {
            chains.withLock {
                $0.insert(VerifiedChains.Entry(digest: digest, validFrom: window.from, validUntil: window.until))
            }
        }
        return 1
    }

    /// SHA-256 over every certificate sent, in order, each as its length and DER bytes.
    static func digest(of certificates: OpaquePointer?) -> [UInt8]? {
        guard let certificates else { return nil }
        let count = OPENSSL_sk_num(certificates)
        guard count > 0 else { return nil }
        var sha = SHA256_CTX()
        _ = astra_SHA256_Init(&sha)
        for index in 0..<count {
            guard let certificate = OPENSSL_sk_value(certificates, index) else { return nil }
            let length = i2d_X509(OpaquePointer(certificate), nil)
            guard length > 0 else { return nil }
            var der = [UInt8](repeating: 0, count: Int(length))
            let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
                var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
                return i2d_X509(OpaquePointer(certificate), &cursor)
            }
            guard written == length else { return nil }
            var prefix = UInt32(length).bigEndian
            _ = astra_SHA256_Update(&sha, &prefix, 4)
            _ = astra_SHA256_Update(&sha, der, der.count)
        }
        var out = [UInt8](repeating: 0, count: 32)
        _ = astra_SHA256_Final(&out, &sha)
        return out
    }

    /// The latest notBefore and earliest notAfter of the built chain, seconds since the epoch.
    static func validity(of chain: OpaquePointer?) -> (from: Int, until: Int)? {
        guard let chain else { return nil }
        var from = Int.min
        var until = Int.max
        for index in 0..<OPENSSL_sk_num(chain) {
            guard let certificate = OPENSSL_sk_value(chain, index).map(OpaquePointer.init),
                let notBefore = seconds(X509_get0_notBefore(certificate)),
                let notAfter = seconds(X509_get0_notAfter(certificate))
            else { return nil }
            from = max(from, notBefore)
            until = min(until, notAfter)
        }
        return from <= until ? (from, until) : nil
    }

    static func seconds(_ time: UnsafePointer<ASN1_TIME>?) -> Int? {
        guard let time else { return nil }
        var parts = tm()
        guard ASN1_TIME_to_tm(time, &parts) == 1 else { return nil }
        return Int(timegm(&parts))
    }

    /// The name check `X509_verify_cert` makes (RFC 6125 through `X509_check_host`, or the IP
    /// address), with the flags of the connection's parameters; nil when the name matches.
    static func nameError(_ leaf: OpaquePointer, _ param: OpaquePointer?) -> Int32? {
        guard let param else { return nil }
        let flags = X509_VERIFY_PARAM_get_hostflags(param)
        if let host = X509_VERIFY_PARAM_get0_host(param, 0) {
            if X509_check_host(leaf, host, 0, flags, nil) != 1 { return X509_V_ERR_HOSTNAME_MISMATCH }
        }
        if let ip = X509_VERIFY_PARAM_get1_ip_asc(param) {
            defer { CRYPTO_free(ip, #fileID, #line) }
            if X509_check_ip_asc(leaf, ip, flags) != 1 { return X509_V_ERR_IP_ADDRESS_MISMATCH }
        }
        return nil
    }
}

#if canImport(Glibc)
import Glibc
#endif
import COpenSSL
import CSRTP

/// Faster primitives for libsrtp2: AES-128-ICM (RFC 3711 §4.1.1) and HMAC-SHA1 (§4.2.1) on
/// OpenSSL (AES-NI, SHA extensions), registered with `srtp_replace_cipher_type` and
/// `srtp_replace_auth_type`.
///
/// libsrtp still does everything SRTP: key derivation, packet index and ROC, replay database,
/// framing and tag checks. Only the two primitives change. Debian 12's libsrtp2 is built on
/// NSS, whose AES-ICM creates a PKCS #11 context per packet (~3.5 µs per protect); with these
/// it is well under 1 µs. libsrtp self-tests each replacement with its own known-answer
/// vectors before accepting it; if that fails, the built-in primitives stay
/// (``Backend/libsrtpBuiltin``). Output is bit-identical (see `SRTPKnownAnswerTests`).
public enum SRTPCrypto {
    public enum Backend: Sendable {
        case openSSL
        case libsrtpBuiltin
    }

    /// Which primitives this process uses (initialises libsrtp on first use).
    public static var backend: Backend { srtpSetup.backend }

    /// Registers the OpenSSL primitives; call after `srtp_init`. Returns false on failure.
    static func install() -> Bool {
        guard let mac = EVP_MAC_fetch(nil, "HMAC", nil) else { return false }
        hmacAlgorithm = mac
        let handle = dlopen(nil, RTLD_NOW)
        guard let cipherTest = dlsym(handle, "srtp_aes_icm_128_test_case_0"),
              let authTest = dlsym(handle, "srtp_hmac_test_case_0") else { return false }

        let cipher = UnsafeMutablePointer<srtp_cipher_type_t>.allocate(capacity: 1)
        cipher.initialize(to: srtp_cipher_type_t(
            alloc: icmAlloc, dealloc: icmDealloc, init: icmInit, set_aad: nil, encrypt: icmEncrypt, decrypt: icmEncrypt,
            set_iv: icmSetIV, get_tag: nil, description: UnsafePointer(strdup("AES-128 ICM (OpenSSL, AstraSIP)")),
            test_data: cipherTest.assumingMemoryBound(to: srtp_cipher_test_case_t.self), id: 1))  // SRTP_AES_ICM_128
        icmType = UnsafePointer(cipher)
        let auth = UnsafeMutablePointer<srtp_auth_type_t>.allocate(capacity: 1)
        auth.initialize(to: srtp_auth_type_t(
            alloc: hmacAlloc, dealloc: hmacDealloc, init: hmacInit, compute: hmacCompute, update: hmacUpdate, start: hmacStart,
            description: UnsafePointer(strdup("HMAC-SHA1 (OpenSSL, AstraSIP)")),
            test_data: authTest.assumingMemoryBound(to: srtp_auth_test_case_t.self), id: 3))  // SRTP_HMAC_SHA1
        hmacType = UnsafePointer(auth)
        return srtp_replace_cipher_type(cipher, 1) == srtp_err_status_ok && srtp_replace_auth_type(auth, 3) == srtp_err_status_ok
    }
}

/// libsrtp initialisation and primitive registration, once per process.
let srtpSetup: (status: srtp_err_status_t, backend: SRTPCrypto.Backend) = {
    var status = srtp_init()
    // A second srtp_init in one process (another module or test got there first) reports
    // bad_param when it re-registers its debug module; the library is initialised all the same.
    if status == srtp_err_status_bad_param { status = srtp_err_status_ok }
    guard status == srtp_err_status_ok else { return (status, .libsrtpBuiltin) }
    return (status, SRTPCrypto.install() ? .openSSL : .libsrtpBuiltin)
}()

// Written once in install() before libsrtp can call back; read-only afterwards.
nonisolated(unsafe) private var hmacAlgorithm: OpaquePointer?
nonisolated(unsafe) private var icmType: UnsafePointer<srtp_cipher_type_t>?
nonisolated(unsafe) private var hmacType: UnsafePointer<srtp_auth_type_t>?
nonisolated(unsafe) private let digestName = strdup("SHA1")
nonisolated(unsafe) private let digestKey = strdup("digest")

private let badParam = srtp_err_status_bad_param
private let cipherFail = srtp_err_status_cipher_fail

/// AES-ICM state: the OpenSSL context and the 16-octet salt offset (k_s · 2^16).
private struct ICMState {
    var context: OpaquePointer
    var offset: (UInt64, UInt64) = (0, 0)
}

private func icmAlloc(_ cp: UnsafeMutablePointer<srtp_cipher_pointer_t?>?, _ keyLength: Int32, _ tagLength: Int32) -> srtp_err_status_t {
    guard let cp, keyLength == 30, let context = EVP_CIPHER_CTX_new() else { return badParam }
    let state = UnsafeMutablePointer<ICMState>.allocate(capacity: 1)
    state.initialize(to: ICMState(context: context))
    let cipher = UnsafeMutablePointer<srtp_cipher_t>.allocate(capacity: 1)
    cipher.initialize(to: srtp_cipher_t(type: icmType, state: UnsafeMutableRawPointer(state), key_len: keyLength, algorithm: 1))
    cp.pointee = cipher
    return srtp_err_status_ok
}

private func icmDealloc(_ c: srtp_cipher_pointer_t?) -> srtp_err_status_t {
    guard let c, let raw = c.pointee.state else { return badParam }
    let state = raw.assumingMemoryBound(to: ICMState.self)
    EVP_CIPHER_CTX_free(state.pointee.context)
    state.deinitialize(count: 1)
    state.deallocate()
    c.deinitialize(count: 1)
    c.deallocate()
    return srtp_err_status_ok
}

/// Key = 16-octet AES key followed by the 14-octet salt.
private func icmInit(_ raw: UnsafeMutableRawPointer?, _ key: UnsafePointer<UInt8>?) -> srtp_err_status_t {
    guard let raw, let key else { return badParam }
    let state = raw.assumingMemoryBound(to: ICMState.self)
    var offset: (UInt64, UInt64) = (0, 0)
    withUnsafeMutableBytes(of: &offset) { o in for i in 0..<14 { o[i] = key[16 + i] } }
    state.pointee.offset = offset
    return EVP_EncryptInit_ex(state.pointee.context, EVP_aes_128_ctr(), nil, key, nil) == 1 ? srtp_err_status_ok : cipherFail
}

/// Counter block = offset XOR IV (RFC 3711 §4.1.1).
private func icmSetIV(_ raw: UnsafeMutableRawPointer?, _ iv: UnsafeMutablePointer<UInt8>?, _ direction: srtp_cipher_direction_t)
    -> srtp_err_status_t {
    guard let raw, let iv else { return badParam }
    let state = raw.assumingMemoryBound(to: ICMState.self)
    let nonce = UnsafeRawPointer(iv)
    var counter = (state.pointee.offset.0 ^ nonce.loadUnaligned(as: UInt64.self),
                   state.pointee.offset.1 ^ nonce.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
    let ok = withUnsafeBytes(of: &counter) { c in
        EVP_EncryptInit_ex(state.pointee.context, nil, nil, nil, c.baseAddress!.assumingMemoryBound(to: UInt8.self))
    }
    return ok == 1 ? srtp_err_status_ok : cipherFail
}

/// Encrypts (= decrypts) in place with the keystream.
private func icmEncrypt(_ raw: UnsafeMutableRawPointer?, _ buffer: UnsafeMutablePointer<UInt8>?, _ octets: UnsafeMutablePointer<UInt32>?)
    -> srtp_err_status_t {
    guard let raw, let buffer, let octets else { return badParam }
    let state = raw.assumingMemoryBound(to: ICMState.self)
    var out: Int32 = 0
    let ok = EVP_EncryptUpdate(state.pointee.context, buffer, &out, buffer, Int32(octets.pointee))
    return ok == 1 ? srtp_err_status_ok : cipherFail
}

private func hmacAlloc(_ ap: UnsafeMutablePointer<srtp_auth_pointer_t?>?, _ keyLength: Int32, _ outLength: Int32) -> srtp_err_status_t {
    guard let ap, keyLength >= 0, keyLength <= 20, outLength <= 20, let context = EVP_MAC_CTX_new(hmacAlgorithm) else {
        return badParam
    }
    let auth = UnsafeMutablePointer<srtp_auth_t>.allocate(capacity: 1)
    auth.initialize(to: srtp_auth_t(type: hmacType, state: UnsafeMutableRawPointer(context), out_len: outLength,
                                    key_len: keyLength, prefix_len: 0))
    ap.pointee = auth
    return srtp_err_status_ok
}

private func hmacDealloc(_ a: srtp_auth_pointer_t?) -> srtp_err_status_t {
    guard let a else { return badParam }
    EVP_MAC_CTX_free(OpaquePointer(a.pointee.state))
    a.deinitialize(count: 1)
    a.deallocate()
    return srtp_err_status_ok
}

private func hmacInit(_ state: UnsafeMutableRawPointer?, _ key: UnsafePointer<UInt8>?, _ keyLength: Int32) -> srtp_err_status_t {
    guard let state, let key else { return badParam }
    var params = [OSSL_PARAM_construct_utf8_string(digestKey, digestName, 0), OSSL_PARAM_construct_end()]
    return EVP_MAC_init(OpaquePointer(state), key, Int(keyLength), &params) == 1 ? srtp_err_status_ok : srtp_err_status_auth_fail
}

private func hmacStart(_ state: UnsafeMutableRawPointer?) -> srtp_err_status_t {
    guard let state else { return badParam }
    return EVP_MAC_init(OpaquePointer(state), nil, 0, nil) == 1 ? srtp_err_status_ok : srtp_err_status_auth_fail
}

private func hmacUpdate(_ state: UnsafeMutableRawPointer?, _ buffer: UnsafePointer<UInt8>?, _ octets: Int32) -> srtp_err_status_t {
    guard let state, let buffer else { return badParam }
    return EVP_MAC_update(OpaquePointer(state), buffer, Int(octets)) == 1 ? srtp_err_status_ok : srtp_err_status_auth_fail
}

private func hmacCompute(_ state: UnsafeMutableRawPointer?, _ buffer: UnsafePointer<UInt8>?, _ octets: Int32, _ tagLength: Int32,
                         _ tag: UnsafeMutablePointer<UInt8>?) -> srtp_err_status_t {
    guard let state, let buffer, let tag, tagLength <= 20 else { return badParam }
    let ctx = OpaquePointer(state)
    guard EVP_MAC_update(ctx, buffer, Int(octets)) == 1 else { return srtp_err_status_auth_fail }
    var digest: (UInt64, UInt64, UInt32) = (0, 0, 0)
    var length = 0
    let ok = withUnsafeMutableBytes(of: &digest) { d in
        EVP_MAC_final(ctx, d.baseAddress!.assumingMemoryBound(to: UInt8.self), &length, 20)
    }
    guard ok == 1 else { return srtp_err_status_auth_fail }
    withUnsafeBytes(of: &digest) { d in for i in 0..<Int(tagLength) { tag[i] = d[i] } }
    return srtp_err_status_ok
}

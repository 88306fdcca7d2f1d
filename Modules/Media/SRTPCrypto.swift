import COpenSSL
import CSRTP

#if canImport(Glibc)
import Glibc
#endif

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

    /// Registers the OpenSSL primitives (once, after `srtp_init`). Returns false on failure.
    static func install() -> Bool {
        guard SHA1Functions.shared != nil else { return false }
        let handle = dlopen(nil, RTLD_NOW)
        guard let cipherTest = dlsym(handle, "srtp_aes_icm_128_test_case_0"),
            let authTest = dlsym(handle, "srtp_hmac_test_case_0")
        else { return false }

        let cipher = UnsafeMutablePointer<srtp_cipher_type_t>.allocate(capacity: 1)
        cipher.initialize(
            to: srtp_cipher_type_t(
                alloc: icmAlloc, dealloc: icmDealloc, init: icmInit, set_aad: nil, encrypt: icmEncrypt,
                decrypt: icmEncrypt,
                set_iv: icmSetIV, get_tag: nil, description: UnsafePointer(strdup("AES-128 ICM (OpenSSL, AstraSIP)")),
                test_data: cipherTest.assumingMemoryBound(to: srtp_cipher_test_case_t.self), id: 1))  // SRTP_AES_ICM_128
        icmType = UnsafePointer(cipher)
        let auth = UnsafeMutablePointer<srtp_auth_type_t>.allocate(capacity: 1)
        auth.initialize(
            to: srtp_auth_type_t(
                alloc: hmacAlloc, dealloc: hmacDealloc, init: hmacInit, compute: hmacCompute, update: hmacUpdate,
                start: hmacStart,
                description: UnsafePointer(strdup("HMAC-SHA1 (OpenSSL, AstraSIP)")),
                test_data: authTest.assumingMemoryBound(to: srtp_auth_test_case_t.self), id: 3))  // SRTP_HMAC_SHA1
        hmacType = UnsafePointer(auth)
        return srtp_replace_cipher_type(cipher, 1) == srtp_err_status_ok
            && srtp_replace_auth_type(auth, 3) == srtp_err_status_ok
    }
}

/// libsrtp initialisation and primitive registration, once per process: through the shared,
/// locked `astra_srtp_init_once` (CSRTP shim), so other modules initialising libsrtp cannot
/// race with it.
let srtpSetup: (status: srtp_err_status_t, backend: SRTPCrypto.Backend) = {
    let status = astra_srtp_init_once(installPrimitives)
    return (status, primitivesInstalled ? .openSSL : .libsrtpBuiltin)
}()

/// Runs under the shim's lock, once.
private func installPrimitives() -> srtp_err_status_t {
    primitivesInstalled = SRTPCrypto.install()
    return primitivesInstalled ? srtp_err_status_ok : srtp_err_status_fail
}

// Written once under the shim's lock before libsrtp can call back; read-only afterwards.
nonisolated(unsafe) private var primitivesInstalled = false
nonisolated(unsafe) private var icmType: UnsafePointer<srtp_cipher_type_t>?
nonisolated(unsafe) private var hmacType: UnsafePointer<srtp_auth_type_t>?

private let badParam = srtp_err_status_bad_param
private let cipherFail = srtp_err_status_cipher_fail

/// AES-ICM state: an AES-128-ECB context (keystream = E(counter block)), the 16-octet salt
/// offset (k_s · 2^16), the current counter block and how many keystream octets were used
/// since the last IV (RFC 3711 §4.1.1).
private struct ICMState {
    var context: OpaquePointer
    var offset: (UInt64, UInt64) = (0, 0)
    var counter: (UInt64, UInt64) = (0, 0)
    var position = 0
}

private func icmAlloc(_ cp: UnsafeMutablePointer<srtp_cipher_pointer_t?>?, _ keyLength: Int32, _ tagLength: Int32)
    -> srtp_err_status_t
{
    guard let cp, keyLength == 30, let context = EVP_CIPHER_CTX_new() else { return badParam }
    let state = UnsafeMutablePointer<ICMState>.allocate(capacity: 1)
    state.initialize(to: ICMState(context: context))
    let cipher = UnsafeMutablePointer<srtp_cipher_t>.allocate(capacity: 1)
    cipher.initialize(
        to: srtp_cipher_t(type: icmType, state: UnsafeMutableRawPointer(state), key_len: keyLength, algorithm: 1))
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
    state.pointee.counter = offset
    state.pointee.position = 0
    guard EVP_EncryptInit_ex(state.pointee.context, EVP_aes_128_ecb(), nil, key, nil) == 1 else { return cipherFail }
    EVP_CIPHER_CTX_set_padding(state.pointee.context, 0)
    return srtp_err_status_ok
}

/// Counter block = offset XOR IV (RFC 3711 §4.1.1); the low 16 bits count blocks.
private func icmSetIV(
    _ raw: UnsafeMutableRawPointer?, _ iv: UnsafeMutablePointer<UInt8>?, _ direction: srtp_cipher_direction_t
)
    -> srtp_err_status_t
{
    guard let raw, let iv else { return badParam }
    let state = raw.assumingMemoryBound(to: ICMState.self)
    let nonce = UnsafeRawPointer(iv)
    state.pointee.counter = (
        state.pointee.offset.0 ^ nonce.loadUnaligned(as: UInt64.self),
        state.pointee.offset.1 ^ nonce.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
    )
    state.pointee.position = 0
    return srtp_err_status_ok
}

/// XORs the keystream into `buffer` (encryption = decryption), continuing from the current
/// position; at most 2^16 blocks per IV (RFC 3711 §4.1.1).
private func icmEncrypt(
    _ raw: UnsafeMutableRawPointer?, _ buffer: UnsafeMutablePointer<UInt8>?, _ octets: UnsafeMutablePointer<UInt32>?
)
    -> srtp_err_status_t
{
    guard let raw, let buffer, let octets else { return badParam }
    let state = raw.assumingMemoryBound(to: ICMState.self)
    let total = Int(octets.pointee)
    guard state.pointee.position + total <= 65536 * 16 else { return srtp_err_status_terminus }
    let chunkBlocks = 64
    let base = state.pointee.counter
    // Counters, then keystream in place, on the stack (no allocation per packet).
    return withUnsafeTemporaryAllocation(byteCount: 16 * chunkBlocks, alignment: 16) { b -> srtp_err_status_t in
        let p = b.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var done = 0
        while done < total {
            let position = state.pointee.position
            let firstBlock = position / 16
            let skip = position % 16
            let count = min(chunkBlocks, (skip + (total - done) + 15) / 16)
            for i in 0..<count {
                let index = UInt64(firstBlock + i)
                b.storeBytes(of: base.0, toByteOffset: 16 * i, as: UInt64.self)
                // Bytes 14–15 hold the big-endian block index (zero in the base counter).
                b.storeBytes(
                    of: base.1 ^ ((index & 0xFF) << 56 | (index >> 8 & 0xFF) << 48), toByteOffset: 16 * i + 8,
                    as: UInt64.self)
            }
            var out: Int32 = 0
            guard EVP_EncryptUpdate(state.pointee.context, p, &out, p, Int32(16 * count)) == 1 else {
                return cipherFail
            }
            let n = min(total - done, 16 * count - skip)
            var i = 0
            if skip == 0 {
                let dst = UnsafeMutableRawPointer(buffer + done)
                while i + 8 <= n {
                    let x =
                        dst.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                        ^ b.load(fromByteOffset: i, as: UInt64.self)
                    dst.storeBytes(of: x, toByteOffset: i, as: UInt64.self)
                    i += 8
                }
            }
            while i < n {
                buffer[done + i] ^= p[skip + i]
                i += 1
            }
            done += n
            state.pointee.position += n
        }
        return srtp_err_status_ok
    }
}

/// SHA-1 block functions from libcrypto. They are "deprecated" in OpenSSL 3 only in favour of
/// EVP, whose per-packet context copies allocate; resolved at run time so the build stays free
/// of deprecation warnings.
private struct SHA1Functions {
    typealias Initialize = @convention(c) (UnsafeMutablePointer<SHA_CTX>?) -> Int32
    typealias Update = @convention(c) (UnsafeMutablePointer<SHA_CTX>?, UnsafeRawPointer?, Int) -> Int32
    typealias Finish = @convention(c) (UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<SHA_CTX>?) -> Int32
    let initialize: Initialize
    let update: Update
    let finish: Finish

    static let shared: SHA1Functions? = {
        let handle = dlopen(nil, RTLD_NOW)
        guard let i = dlsym(handle, "SHA1_Init"), let u = dlsym(handle, "SHA1_Update"),
            let f = dlsym(handle, "SHA1_Final")
        else {
            return nil
        }
        return SHA1Functions(
            initialize: unsafeBitCast(i, to: Initialize.self), update: unsafeBitCast(u, to: Update.self),
            finish: unsafeBitCast(f, to: Finish.self))
    }()
}

/// HMAC-SHA1 (RFC 2104) state: SHA-1 states after the ipad and opad blocks, and a working one.
private struct HMACState {
    var inner = SHA_CTX()
    var outer = SHA_CTX()
    var work = SHA_CTX()
}

private func hmacAlloc(_ ap: UnsafeMutablePointer<srtp_auth_pointer_t?>?, _ keyLength: Int32, _ outLength: Int32)
    -> srtp_err_status_t
{
    guard let ap, keyLength >= 0, keyLength <= 20, outLength <= 20, SHA1Functions.shared != nil else { return badParam }
    let state = UnsafeMutablePointer<HMACState>.allocate(capacity: 1)
    state.initialize(to: HMACState())
    let auth = UnsafeMutablePointer<srtp_auth_t>.allocate(capacity: 1)
    auth.initialize(
        to: srtp_auth_t(
            type: hmacType, state: UnsafeMutableRawPointer(state), out_len: outLength,
            key_len: keyLength, prefix_len: 0))
    ap.pointee = auth
    return srtp_err_status_ok
}

private func hmacDealloc(_ a: srtp_auth_pointer_t?) -> srtp_err_status_t {
    guard let a, let raw = a.pointee.state else { return badParam }
    let state = raw.assumingMemoryBound(to: HMACState.self)
    state.pointee = HMACState()  // wipe key-derived state
    state.deinitialize(count: 1)
    state.deallocate()
    a.deinitialize(count: 1)
    a.deallocate()
    return srtp_err_status_ok
}

private func hmacInit(_ raw: UnsafeMutableRawPointer?, _ key: UnsafePointer<UInt8>?, _ keyLength: Int32)
    -> srtp_err_status_t
{
    guard let raw, let key, keyLength <= 64, let sha = SHA1Functions.shared else { return badParam }
    let state = raw.assumingMemoryBound(to: HMACState.self)
    var pad = [UInt8](repeating: 0x36, count: 64)
    for i in 0..<Int(keyLength) { pad[i] ^= key[i] }
    _ = sha.initialize(&state.pointee.inner)
    _ = sha.update(&state.pointee.inner, pad, 64)
    for i in 0..<64 { pad[i] ^= 0x36 ^ 0x5C }
    _ = sha.initialize(&state.pointee.outer)
    _ = sha.update(&state.pointee.outer, pad, 64)
    for i in 0..<64 { pad[i] = 0 }
    state.pointee.work = state.pointee.inner
    return srtp_err_status_ok
}

private func hmacStart(_ raw: UnsafeMutableRawPointer?) -> srtp_err_status_t {
    guard let raw else { return badParam }
    let state = raw.assumingMemoryBound(to: HMACState.self)
    state.pointee.work = state.pointee.inner
    return srtp_err_status_ok
}

private func hmacUpdate(_ raw: UnsafeMutableRawPointer?, _ buffer: UnsafePointer<UInt8>?, _ octets: Int32)
    -> srtp_err_status_t
{
    guard let raw, let buffer, let sha = SHA1Functions.shared else { return badParam }
    let state = raw.assumingMemoryBound(to: HMACState.self)
    _ = sha.update(&state.pointee.work, buffer, Int(octets))
    return srtp_err_status_ok
}

private func hmacCompute(
    _ raw: UnsafeMutableRawPointer?, _ buffer: UnsafePointer<UInt8>?, _ octets: Int32, _ tagLength: Int32,
    _ tag: UnsafeMutablePointer<UInt8>?
) -> srtp_err_status_t {
    guard let raw, let buffer, let tag, tagLength <= 20, let sha = SHA1Functions.shared else { return badParam }
    let state = raw.assumingMemoryBound(to: HMACState.self)
    _ = sha.update(&state.pointee.work, buffer, Int(octets))
    var digest: (UInt64, UInt64, UInt32) = (0, 0, 0)
    withUnsafeMutableBytes(of: &digest) { d in
        let p = d.baseAddress!.assumingMemoryBound(to: UInt8.self)
        _ = sha.finish(p, &state.pointee.work)
        state.pointee.work = state.pointee.outer
        _ = sha.update(&state.pointee.work, p, 20)
        _ = sha.finish(p, &state.pointee.work)
        for i in 0..<Int(tagLength) { tag[i] = p[i] }
    }
    return srtp_err_status_ok
}

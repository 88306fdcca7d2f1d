import CSRTP

/// One direction of SRTP/SRTCP (RFC 3711) over libsrtp2: an outbound context protects, an
/// inbound one unprotects and enforces replay protection (RFC 3711 §3.3.2, window 128 by
/// default, per SSRC).
///
/// Not `Sendable`: own it in one actor (or one thread). Key material is copied into libsrtp and
/// never logged.
public final class SRTPContext {
    public enum Direction: Sendable {
        case outbound
        case inbound
    }

    public let profile: SRTPProfile
    public let direction: Direction
    private let session: srtp_t

    /// Creates a context. Throws `srtpSetupFailed` if libsrtp rejects the policy (for example
    /// GCM when libsrtp is built without it).
    public init(key: SRTPKeyMaterial, direction: Direction, replayWindow: UInt = 128) throws(MediaError) {
        guard srtpSetup.status == srtp_err_status_ok else {
            throw MediaError(.srtpSetupFailed, "srtp_init failed: status \(srtpSetup.status.rawValue)")
        }
        profile = key.profile
        self.direction = direction
        var policy = srtp_policy_t()
        switch key.profile {
        case .aesCM128HmacSHA1_80:
            srtp_crypto_policy_set_rtp_default(&policy.rtp)
            srtp_crypto_policy_set_rtcp_default(&policy.rtcp)
        case .aesCM128HmacSHA1_32:
            srtp_crypto_policy_set_aes_cm_128_hmac_sha1_32(&policy.rtp)
            srtp_crypto_policy_set_rtcp_default(&policy.rtcp)
        case .aeadAES128GCM:
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtp)
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtcp)
        }
        policy.ssrc.type = direction == .outbound ? ssrc_any_outbound : ssrc_any_inbound
        policy.window_size = replayWindow
        policy.allow_repeat_tx = 0
        var keyCopy = key.keyAndSalt
        var created: srtp_t?
        let status = keyCopy.withUnsafeMutableBufferPointer { raw -> srtp_err_status_t in
            policy.key = raw.baseAddress
            return srtp_create(&created, &policy)
        }
        for i in keyCopy.indices { keyCopy[i] = 0 }
        guard status == srtp_err_status_ok, let created else {
            throw MediaError(.srtpSetupFailed, "\(key.profile.sdesName): srtp_create status \(status.rawValue)")
        }
        session = created
    }

    deinit { srtp_dealloc(session) }

    /// Bytes to reserve after a packet for ``protect(_:length:capacity:)``.
    public static let maxTrailer = Int(SRTP_MAX_TRAILER_LEN)
    /// Bytes to reserve for SRTCP (tag, MKI and the 4-octet E/index word, RFC 3711 §3.4).
    public static let maxRTCPTrailer = Int(SRTP_MAX_TRAILER_LEN) + 4

    /// Protects the RTP packet of `length` bytes at `buffer` in place (RFC 3711 §3.3);
    /// `capacity` must leave room for the tag. Returns the SRTP length.
    @inline(__always)
    public func protect(_ buffer: UnsafeMutableRawPointer, length: Int, capacity: Int) throws(MediaError) -> Int {
        precondition(capacity >= length + Self.maxTrailer, "SRTPContext.protect: no room for the trailer")
        var len = Int32(length)
        let status = srtp_protect(session, buffer, &len)
        guard status == srtp_err_status_ok else { throw Self.error(status, "protect") }
        return Int(len)
    }

    /// Unprotects (authenticates, replay-checks, decrypts) in place; returns the RTP length.
    @inline(__always)
    public func unprotect(_ buffer: UnsafeMutableRawPointer, length: Int) throws(MediaError) -> Int {
        var len = Int32(length)
        let status = srtp_unprotect(session, buffer, &len)
        guard status == srtp_err_status_ok else { throw Self.error(status, "unprotect") }
        return Int(len)
    }

    /// SRTCP protect in place (RFC 3711 §3.4).
    public func protectRTCP(_ buffer: UnsafeMutableRawPointer, length: Int, capacity: Int) throws(MediaError) -> Int {
        precondition(capacity >= length + Self.maxRTCPTrailer, "SRTPContext.protectRTCP: no room")
        var len = Int32(length)
        let status = srtp_protect_rtcp(session, buffer, &len)
        guard status == srtp_err_status_ok else { throw Self.error(status, "protect_rtcp") }
        return Int(len)
    }

    /// SRTCP unprotect in place.
    public func unprotectRTCP(_ buffer: UnsafeMutableRawPointer, length: Int) throws(MediaError) -> Int {
        var len = Int32(length)
        let status = srtp_unprotect_rtcp(session, buffer, &len)
        guard status == srtp_err_status_ok else { throw Self.error(status, "unprotect_rtcp") }
        return Int(len)
    }

    // MARK: Array conveniences

    public func protect(_ packet: [UInt8]) throws(MediaError) -> [UInt8] {
        try transform(packet, extra: Self.maxTrailer) { (p, n, c) throws(MediaError) in
            try protect(p, length: n, capacity: c)
        }
    }

    public func unprotect(_ packet: [UInt8]) throws(MediaError) -> [UInt8] {
        try transform(packet, extra: 0) { (p, n, _) throws(MediaError) in try unprotect(p, length: n) }
    }

    public func protectRTCP(_ packet: [UInt8]) throws(MediaError) -> [UInt8] {
        try transform(packet, extra: Self.maxRTCPTrailer) { (p, n, c) throws(MediaError) in
            try protectRTCP(p, length: n, capacity: c)
        }
    }

    public func unprotectRTCP(_ packet: [UInt8]) throws(MediaError) -> [UInt8] {
        try transform(packet, extra: 0) { (p, n, _) throws(MediaError) in try unprotectRTCP(p, length: n) }
    }

    private func transform(
        _ packet: [UInt8], extra: Int,
        _ body: (UnsafeMutableRawPointer, Int, Int) throws(MediaError) -> Int
    ) throws(MediaError) -> [UInt8] {
        var buffer = packet + [UInt8](repeating: 0, count: extra)
        let capacity = buffer.count
        let result: Result<Int, MediaError> = buffer.withUnsafeMutableBytes { raw in
            do throws(MediaError) { return .success(try body(raw.baseAddress!, packet.count, capacity)) } catch {
                return .failure(error)
            }
        }
        let length = try result.get()
        buffer.removeLast(buffer.count - length)
        return buffer
    }

    private static func error(_ status: srtp_err_status_t, _ what: String) -> MediaError {
        switch status {
        case srtp_err_status_auth_fail: MediaError(.srtpAuthenticationFailed, what)
        case srtp_err_status_replay_fail, srtp_err_status_replay_old: MediaError(.srtpReplay, what)
        default: MediaError(.srtpFailed, "\(what): status \(status.rawValue)")
        }
    }
}

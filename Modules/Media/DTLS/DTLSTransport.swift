import COpenSSL

/// One DTLS 1.2 association for DTLS-SRTP (RFC 5763, RFC 5764) over OpenSSL memory BIOs,
/// driven like a state machine: every input returns ``Action``s (datagrams to send, the
/// retransmission timer to arm, the outcome). No socket and no clock inside: the owner feeds
/// received records, fires ``handleTimeout()`` when the armed timer expires (RFC 6347 §4.2.4;
/// initial 100 ms doubling to 3 s), and sends what comes out.
///
/// The timer's durations are ours (``Retransmission``), not read back from OpenSSL's clock:
/// `DTLS_set_timer_cb` tells us when OpenSSL arms its timer for a new flight (→ initial) or
/// backs off after a retransmission (→ doubled), and ``Action/startTimer(_:)`` carries that
/// duration; the owner's clock decides when it has run out. OpenSSL (3.0, unlike BoringSSL)
/// has no clock hook and still checks its own timer in `DTLSv1_handle_timeout` (and retransmits
/// by itself when a handshake read finds it run out), so it is given the same duration — its
/// 15 ms slack makes it due when ours is; if the owner still fires first, ``handleTimeout()``
/// re-arms for what OpenSSL has left. A flight unanswered after 12 retransmissions fails.
///
/// After the handshake the peer certificate's digest is compared with its SDP
/// `a=fingerprint` (RFC 5763 §5) and the SRTP keys are exported with the
/// `EXTRACTOR-dtls_srtp` label (RFC 5764 §4.2) into ``SRTPKeys``. Not `Sendable`: owned by one
/// actor (as ``SRTPContext``). Keys are never printed.
public final class DTLSTransport {
    public enum Action: Sendable, Hashable {
        /// One UDP datagram (records packed up to the MTU).
        case send([UInt8])
        /// Arm the retransmission timer for this long (replaces any armed one).
        case startTimer(Duration)
        /// Handshake done, fingerprint verified: the SRTP profile and both keys.
        case connected(SRTPKeys)
        /// The association failed or was closed; the reason is printable.
        case failed(DTLSError)
    }

    /// One line per state (RFC 6347 §4.2.4 flights abstracted).
    private enum State {
        /// Created; the client has not sent its ClientHello yet.
        case idle
        /// Flights are being exchanged.
        case handshaking
        /// Keys exported; records now only carry alerts.
        case connected
        /// Failed or closed.
        case failed
    }

    /// RFC 6347 §4.2.4.1 timer values: `initial` for a new flight, doubled per retransmission up
    /// to `maximum` (100 ms / 3 s here, D11; RFC 6347 says 1 s / 60 s, libwebrtc starts at 50 ms).
    public struct Retransmission: Sendable, Hashable {
        public var initial: Duration = .milliseconds(100)
        public var maximum: Duration = .seconds(3)
        /// Tests: OpenSSL's own wall-clock timer runs this long whatever ours says, so a test can
        /// walk our schedule (100 ms … 3 s, virtual) while OpenSSL is due after a few real ms.
        /// Keep it above 15 ms: OpenSSL counts a timer with less than 15 ms left as run out, and
        /// when a handshake read finds its timer run out it retransmits by itself, in a loop.
        var openSSLTimer: Duration?
        public init(initial: Duration = .milliseconds(100), maximum: Duration = .seconds(3)) {
            self.initial = initial
            self.maximum = maximum
        }
    }

    public let role: DTLSRole
    public let retransmission: Retransmission
    /// The current timer value (``Retransmission``), and whether OpenSSL armed its timer during
    /// the input being handled (reported as ``Action/startTimer(_:)`` at its end).
    private var timeout: Duration
    private var timerArmed = false
    /// Profiles we offer, in preference order (RFC 5764 §4.1.2).
    public let profiles: [SRTPProfile]
    public let expectedFingerprint: CertificateFingerprint
    public let mtu: Int
    private let context: OpaquePointer
    private let ssl: OpaquePointer
    private let readBIO: OpaquePointer
    private let writeBIO: OpaquePointer
    private var state = State.idle

    /// The use_srtp names OpenSSL knows for our profiles.
    static func opensslName(_ p: SRTPProfile) -> String {
        switch p {
        case .aesCM128HmacSHA1_80: "SRTP_AES128_CM_SHA1_80"
        case .aesCM128HmacSHA1_32: "SRTP_AES128_CM_SHA1_32"
        case .aeadAES128GCM: "SRTP_AEAD_AES_128_GCM"
        }
    }

    /// - Parameters:
    ///   - role: client or server of the handshake (from SDP `a=setup`, RFC 5763 §5).
    ///   - certificate: ours (per session).
    ///   - expectedFingerprint: the peer's `a=fingerprint` (sha-1/-256/-384/-512).
    ///   - profiles: offered `use_srtp` profiles; Asterisk accepts only the AES-CM ones.
    ///   - mtu: the largest datagram a handshake flight uses (records split below it).
    ///   - retransmission: the flight retransmission timer, doubling to its ceiling (RFC 6347 §4.2.4).
    public init(
        role: DTLSRole, certificate: DTLSCertificate, expectedFingerprint: CertificateFingerprint,
        profiles: [SRTPProfile] = [.aesCM128HmacSHA1_80, .aesCM128HmacSHA1_32], mtu: Int = 1200,
        retransmission: Retransmission = Retransmission()
    ) throws(DTLSError) {
        guard Self.hash(expectedFingerprint.hashFunction) != nil else {
            throw DTLSError(.missingFingerprint, "unsupported fingerprint hash '\(expectedFingerprint.hashFunction)'")
        }
        guard let ctx = SSL_CTX_new(DTLS_method()) else { throw DTLSError(.setupFailed, "SSL_CTX_new") }
        self.role = role
        self.profiles = profiles
        self.expectedFingerprint = expectedFingerprint
        self.mtu = mtu
        self.retransmission = retransmission
        timeout = retransmission.initial
        context = ctx
        _ = astra_SSL_CTX_set_min_proto_version(ctx, astra_DTLS1_2_VERSION())
        _ = astra_SSL_CTX_set_max_proto_version(ctx, astra_DTLS1_2_VERSION())
        // Self-signed peers: accept any chain here, the fingerprint is checked afterwards.
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT) { _, _ in 1 }
        let names = profiles.map(Self.opensslName).joined(separator: ":")
        guard SSL_CTX_use_certificate(ctx, certificate.x509) == 1, SSL_CTX_use_PrivateKey(ctx, certificate.key) == 1,
            SSL_CTX_set_tlsext_use_srtp(ctx, names) == 0,  // 0 is success (SWIFT-LINUX.md)
            let s = SSL_new(ctx)
        else {
            let reason = Self.opensslError()
            SSL_CTX_free(ctx)
            throw DTLSError(.setupFailed, "SSL context: \(reason)")
        }
        ssl = s
        readBIO = BIO_new(BIO_s_mem())
        writeBIO = BIO_new(BIO_s_mem())
        _ = astra_BIO_set_mem_eof_return(readBIO, -1)
        _ = astra_BIO_set_mem_eof_return(writeBIO, -1)
        SSL_set_bio(ssl, readBIO, writeBIO)  // the SSL owns both BIOs now
        _ = SSL_set_options(ssl, 0x1000)  // SSL_OP_NO_QUERY_MTU: we set it
        _ = astra_SSL_set_mtu(ssl, mtu - 28)
        // The timer callback finds us through the SSL's app-data slot (unretained: the SSL
        // lives exactly as long as this object).
        _ = SSL_set_ex_data(ssl, 0, Unmanaged.passUnretained(self).toOpaque())
        DTLS_set_timer_cb(ssl) { ssl, previous in
            guard let ssl, let me = SSL_get_ex_data(ssl, 0) else { return previous == 0 ? 100_000 : previous * 2 }
            return Unmanaged<DTLSTransport>.fromOpaque(me).takeUnretainedValue().timerArmed(backingOff: previous != 0)
        }
        if role == .client { SSL_set_connect_state(ssl) } else { SSL_set_accept_state(ssl) }
    }

    /// OpenSSL arms its timer: for a new flight (`backingOff` false) or after a retransmission.
    /// Returns OpenSSL's duration in µs.
    private func timerArmed(backingOff: Bool) -> UInt32 {
        timeout = backingOff ? min(timeout * 2, retransmission.maximum) : retransmission.initial
        timerArmed = true
        let c = (retransmission.openSSLTimer ?? timeout).components
        return UInt32(clamping: c.seconds * 1_000_000 + c.attoseconds / 1_000_000_000_000)
    }

    deinit {
        SSL_free(ssl)
        SSL_CTX_free(context)
    }

    public var isConnected: Bool { if case .connected = state { true } else { false } }

    /// The client sends its ClientHello; the server waits for one.
    public func start() -> [Action] {
        guard case .idle = state else { return [] }
        state = .handshaking
        return role == .client ? advance() : []
    }

    /// One received DTLS datagram (RFC 7983: first byte 20–63).
    public func receive(_ datagram: [UInt8]) -> [Action] {
        if case .failed = state { return [] }
        if case .idle = state { state = .handshaking }
        _ = datagram.withUnsafeBytes { BIO_write(readBIO, $0.baseAddress, Int32($0.count)) }
        return advance()
    }

    /// The armed timer fired: retransmit the last flight if it is still unanswered.
    public func handleTimeout() -> [Action] {
        guard case .handshaking = state else { return [] }
        let r = astra_DTLSv1_handle_timeout(ssl)
        if r < 0 {  // OpenSSL gives up after 12 retransmissions of a flight (DTLS1_TMO_ALERT_COUNT)
            state = .failed
            return flush() + [.failed(DTLSError(.handshakeFailed, "no answer: \(Self.opensslError())"))]
        }
        if r == 0 {
            // OpenSSL's own timer is not due yet (the owner's clock ran ahead of it) or not
            // running (the flight was answered): keep waiting for what OpenSSL has left.
            var tv = timeval()
            guard astra_DTLSv1_get_timeout(ssl, &tv) == 1 else { return [] }
            return [.startTimer(.seconds(Int64(tv.tv_sec)) + .microseconds(Int64(tv.tv_usec)))]
        }
        return flush() + timer()
    }

    /// Sends close_notify (RFC 5246 §7.2.1).
    public func close() -> [Action] {
        guard case .connected = state else { return [] }
        _ = SSL_shutdown(ssl)
        state = .failed
        return flush()
    }

    private func advance() -> [Action] {
        switch state {
        case .handshaking:
            let r = SSL_do_handshake(ssl)
            if r == 1 { return flush() + finish() }
            let e = SSL_get_error(ssl, r)
            if e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE { return flush() + timer() }
            state = .failed
            return flush() + [.failed(DTLSError(.handshakeFailed, Self.opensslError()))]
        case .connected:
            // Retransmitted flights and alerts after the handshake.
            var buffer = [UInt8](repeating: 0, count: 2048)
            let n = buffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if n <= 0 {
                let e = SSL_get_error(ssl, n)
                if e == SSL_ERROR_ZERO_RETURN || e == SSL_ERROR_SSL {
                    state = .failed
                    return flush() + [
                        .failed(DTLSError(.closed, e == SSL_ERROR_ZERO_RETURN ? "close_notify" : Self.opensslError()))
                    ]
                }
            }
            return flush()
        case .idle, .failed:
            return []
        }
    }

    /// Fingerprint check (RFC 5763 §5), profile (RFC 5764 §4.1.2), key export (§4.2).
    private func finish() -> [Action] {
        state = .failed
        guard let peer = SSL_get1_peer_certificate(ssl) else {
            return [.failed(DTLSError(.fingerprintMismatch, "peer sent no certificate"))]
        }
        defer { X509_free(peer) }
        var digest = [UInt8](repeating: 0, count: 64)
        var length: UInt32 = 0
        _ = digest.withUnsafeMutableBufferPointer {
            X509_digest(peer, Self.hash(expectedFingerprint.hashFunction)!, $0.baseAddress, &length)
        }
        let actual = CertificateFingerprint(
            hashFunction: expectedFingerprint.hashFunction, bytes: Array(digest.prefix(Int(length))))
        guard actual.bytes == expectedFingerprint.bytes else {
            return [
                .failed(
                    DTLSError(
                        .fingerprintMismatch,
                        "peer certificate is \(actual.value), its SDP a=fingerprint says \(expectedFingerprint.value)"))
            ]
        }
        guard let selected = SSL_get_selected_srtp_profile(ssl),
            let profile = Self.profile(id: selected.pointee.id), profiles.contains(profile)
        else { return [.failed(DTLSError(.noSRTPProfile, "no common use_srtp profile"))] }
        let keyLength = 16
        let saltLength = profile == .aeadAES128GCM ? 12 : 14
        var material = [UInt8](repeating: 0, count: 2 * (keyLength + saltLength))
        let label = "EXTRACTOR-dtls_srtp"
        let ok = material.withUnsafeMutableBufferPointer {
            SSL_export_keying_material(ssl, $0.baseAddress, $0.count, label, label.utf8.count, nil, 0, 0)
        }
        defer { for i in material.indices { material[i] = 0 } }
        guard ok == 1 else { return [.failed(DTLSError(.handshakeFailed, "keying material export failed"))] }
        // RFC 5764 §4.2: client key | server key | client salt | server salt.
        let clientKey = Array(material[0..<keyLength]) + Array(material[(2 * keyLength)..<(2 * keyLength + saltLength)])
        let serverKey =
            Array(material[keyLength..<(2 * keyLength)]) + Array(material[(2 * keyLength + saltLength)...])
        guard let client = try? SRTPKeyMaterial(profile: profile, keyAndSalt: clientKey),
            let server = try? SRTPKeyMaterial(profile: profile, keyAndSalt: serverKey)
        else { return [.failed(DTLSError(.handshakeFailed, "key sizes"))] }
        state = .connected
        return [
            .connected(
                role == .client ? SRTPKeys(local: client, remote: server) : SRTPKeys(local: server, remote: client))
        ]
    }

    /// Drains the write BIO into datagrams of whole records, each at most ``mtu`` octets.
    private func flush() -> [Action] {
        let pending = Int(astra_BIO_ctrl_pending(writeBIO))
        guard pending > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: pending)
        let n = bytes.withUnsafeMutableBytes { BIO_read(writeBIO, $0.baseAddress, Int32(pending)) }
        guard n > 0 else { return [] }
        bytes.removeLast(pending - Int(n))
        var datagrams: [[UInt8]] = []
        var current: [UInt8] = []
        var offset = 0
        while offset + 13 <= bytes.count {
            let length = Int(bytes[offset + 11]) << 8 | Int(bytes[offset + 12])
            let end = min(bytes.count, offset + 13 + length)
            if !current.isEmpty && current.count + (end - offset) > mtu {
                datagrams.append(current)
                current = []
            }
            current += bytes[offset..<end]
            offset = end
        }
        if offset < bytes.count { current += bytes[offset...] }
        if !current.isEmpty { datagrams.append(current) }
        return datagrams.map { .send($0) }
    }

    /// ``Action/startTimer(_:)`` with our duration when OpenSSL armed its timer during this input.
    private func timer() -> [Action] {
        guard timerArmed else { return [] }
        timerArmed = false
        return [.startTimer(timeout)]
    }

    static func profile(id: UInt) -> SRTPProfile? {
        switch id {
        case 0x0001: .aesCM128HmacSHA1_80
        case 0x0002: .aesCM128HmacSHA1_32
        case 0x0007: .aeadAES128GCM
        default: nil
        }
    }

    static func hash(_ name: String) -> OpaquePointer? {
        switch name.lowercased() {
        case "sha-1": EVP_sha1()
        case "sha-256": EVP_sha256()
        case "sha-384": EVP_sha384()
        case "sha-512": EVP_sha512()
        default: nil
        }
    }

    /// The last OpenSSL error queued on this thread, as text (queue emptied).
    static func opensslError() -> String {
        var last: UInt = 0
        while true {
            let e = ERR_get_error()
            if e == 0 { break }
            last = e
        }
        guard last != 0 else { return "no OpenSSL error queued" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(last, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

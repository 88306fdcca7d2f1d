import SIPCore

extension SRTPContext {
    /// Runs one SRTP and one SRTCP packet through a throw-away context pair, once per process.
    ///
    /// The first protect/unprotect in a process pays libsrtp's and OpenSSL's lazy set-up
    /// (cipher and HMAC fetch): measured at 60–100 ms in a debug astra-call, the whole gap
    /// between DTLS connected and the first decrypted packet. A WebRTC session learns its keys
    /// in the middle of call set-up, so it calls this when it is created, before the offer or
    /// answer goes out. No key from here is ever used again.
    public static func warmUp() { _ = warmedUp }

    private static let warmedUp: Bool = {
        let key = SRTPKeyMaterial.random(.aesCM128HmacSHA1_80)
        guard let tx = try? SRTPContext(key: key, direction: .outbound),
            let rx = try? SRTPContext(key: key, direction: .inbound)
        else { return false }
        var rtp = [UInt8](repeating: 0, count: 12 + 160)
        rtp[0] = 0x80
        rtp[1] = 8
        rtp[3] = 1
        if let sealed = try? tx.protect(rtp) { _ = try? rx.unprotect(sealed) }
        var rtcp = [UInt8](repeating: 0, count: 8)  // an empty receiver report
        rtcp[0] = 0x80
        rtcp[1] = 201
        rtcp[3] = 1
        if let sealed = try? tx.protectRTCP(rtcp) { _ = try? rx.unprotectRTCP(sealed) }
        return true
    }()
}

import SIPCore
import Testing

@testable import Media

@Suite struct SRTPTests {
    static func rtp(seq: UInt16, ssrc: UInt32 = 0x1122_3344) -> [UInt8] {
        RTPPacket(
            header: RTPHeader(payloadType: 8, sequenceNumber: seq, timestamp: UInt32(seq) * 160, ssrc: ssrc),
            payload: [UInt8](repeating: 0xD5, count: 160)
        ).serialized()
    }

    @Test(arguments: SRTPProfile.allCases)
    func protectUnprotectRoundTripWithReplayAndTamperDetection(profile: SRTPProfile) throws {
        let key = SRTPKeyMaterial.random(profile)
        let tx: SRTPContext
        do { tx = try SRTPContext(key: key, direction: .outbound) } catch {
            // GCM may be missing from a libsrtp build; the other suites must work.
            #expect(profile == .aeadAES128GCM, "\(profile) unavailable: \(error)")
            return
        }
        let rx = try SRTPContext(key: key, direction: .inbound)
        let plain = Self.rtp(seq: 1)
        let protected = try tx.protect(plain)
        #expect(protected.count == plain.count + profile.rtpOverhead)
        #expect(Array(protected[12..<172]) != Array(plain[12...]) || profile == .aesCM128HmacSHA1_32 && false)
        #expect(try rx.unprotect(protected) == plain)
        #expect(throws: MediaError(.srtpReplay)) { try rx.unprotect(protected) }
        var tampered = try tx.protect(Self.rtp(seq: 2))
        tampered[20] ^= 0x01
        #expect(throws: MediaError(.srtpAuthenticationFailed)) { try rx.unprotect(tampered) }
        // The genuine packet 2 still passes after the forgery was rejected.
        let genuine2 = try tx.protect(Self.rtp(seq: 3))
        #expect(try rx.unprotect(genuine2) == Self.rtp(seq: 3))
        // Wrong key.
        let other = try SRTPContext(
            key: SRTPKeyMaterial.random(profile), direction: .inbound)
        #expect(throws: MediaError(.srtpAuthenticationFailed)) { try other.unprotect(try tx.protect(Self.rtp(seq: 4))) }
        // SRTCP.
        let rtcp = RTCPPacket.serialize([.receiverReport(ssrc: 0x1122_3344, reports: [])])
        let srtcp = try tx.protectRTCP(rtcp)
        #expect(srtcp.count > rtcp.count)
        #expect(try rx.unprotectRTCP(srtcp) == rtcp)
        #expect(throws: MediaError(.srtpReplay)) { try rx.unprotectRTCP(srtcp) }
    }

    @Test func aeadGCMIsAvailableInThisLibsrtp() throws {
        // Recorded for the README: Debian's libsrtp2 links NSS and supports AEAD_AES_128_GCM.
        _ = try SRTPContext(
            key: SRTPKeyMaterial.random(.aeadAES128GCM), direction: .outbound)
    }

    @Test func replayWindowAcceptsReorderingWithin128() throws {
        let key = SRTPKeyMaterial.random(.aesCM128HmacSHA1_80)
        let tx = try SRTPContext(key: key, direction: .outbound)
        let rx = try SRTPContext(key: key, direction: .inbound)
        let packets = try (0..<200).map { try tx.protect(Self.rtp(seq: UInt16(truncatingIfNeeded: 65500 + $0))) }  // wraps
        _ = try rx.unprotect(packets[30])  // the receiver learns ROC 0 before the wrap (RFC 3711 §3.3.1)
        _ = try rx.unprotect(packets[150])
        _ = try rx.unprotect(packets[100])  // 50 behind: inside the window
        #expect(throws: MediaError(.srtpReplay)) { try rx.unprotect(packets[10]) }  // 140 behind: too old
        _ = try rx.unprotect(packets[199])
    }

    /// RFC 3711 Appendix B.3 (key derivation) checked through libsrtp: the session keys derived
    /// from the vector's master key/salt encrypt exactly as AES-CM with the B.3 cipher key and
    /// salt, so we compare an SRTP payload with an independent AES-CTR keystream (OpenSSL).
    @Test func keyDerivationMatchesRFC3711AppendixB3() throws {
        let json = try Vectors.json("srtp_vectors.json")
        let b3 = try #require(json["B.3_key_derivation"] as? [String: Any])
        let masterKey = hexBytes(b3["master_key"] as! String)
        let masterSalt = hexBytes(b3["master_salt"] as! String)
        let cipherKey = hexBytes((b3["cipher_key"] as! [String: Any])["expected"] as! String)
        let saltEntry = try #require(b3["cipher_salt"] as? [String: Any])
        let cipherSalt = hexBytes(saltEntry["expected"] as! String)
        let tx = try SRTPContext(
            key: try SRTPKeyMaterial(profile: .aesCM128HmacSHA1_80, keyAndSalt: masterKey + masterSalt),
            direction: .outbound)
        let ssrc: UInt32 = 0xCAFE_BABE
        let seq: UInt16 = 5
        let plain = Self.rtp(seq: seq, ssrc: ssrc)
        let protected = try tx.protect(plain)
        // RFC 3711 §4.1.1: IV = (k_s * 2^16) XOR (SSRC * 2^64) XOR (i * 2^16), i = ROC||SEQ.
        var iv = [UInt8](repeating: 0, count: 16)
        for j in 0..<14 { iv[j] = cipherSalt[j] }
        for j in 0..<4 { iv[4 + j] ^= UInt8(truncatingIfNeeded: ssrc >> (24 - 8 * UInt32(j))) }
        iv[12] ^= UInt8(seq >> 8)
        iv[13] ^= UInt8(seq & 0xFF)
        let keystream = try AESCTR.keystream(key: cipherKey, iv: iv, count: 160)
        let expected = zip(plain[12...], keystream).map { $0 ^ $1 }
        #expect(Array(protected[12..<172]) == expected)
    }
}

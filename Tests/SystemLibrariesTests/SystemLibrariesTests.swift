import CALSA
import CCurl
import COpenSSL
import CQRencode
import CSRTP
import CZBar
import Testing

/// One test per Debian C library: each proves the system-library target links and works.
@Suite struct SystemLibrariesTests {
    @Test func openSSLComputesSHA256OfABC() {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let input = Array("abc".utf8)
        let ok = EVP_Digest(input, input.count, &digest, &length, EVP_sha256(), nil)
        #expect(ok == 1)
        let hex = digest.prefix(Int(length)).map { String($0, radix: 16) }.map { $0.count == 1 ? "0" + $0 : $0 }.joined()
        // FIPS 180-2 Appendix B.1.
        #expect(hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func libsrtpProtectsAndUnprotectsARTPPacket() throws {
        // Through the shim's once-only, locked initialiser: Media's tests use libsrtp in the same
        // process and libsrtp's global init is not thread-safe.
        #expect(astra_srtp_init_once(nil) == srtp_err_status_ok)
        var key = [UInt8](repeating: 0, count: 30)
        for i in key.indices { key[i] = UInt8(i) }

        func makeSession(_ direction: srtp_ssrc_type_t) -> srtp_t? {
            var policy = srtp_policy_t()
            srtp_crypto_policy_set_rtp_default(&policy.rtp)
            srtp_crypto_policy_set_rtp_default(&policy.rtcp)
            policy.ssrc.type = direction
            policy.window_size = 128
            var session: srtp_t?
            let status = key.withUnsafeMutableBytes { raw -> srtp_err_status_t in
                policy.key = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
                return srtp_create(&session, &policy)
            }
            return status == srtp_err_status_ok ? session : nil
        }
        let sender = try #require(makeSession(ssrc_any_outbound))
        let receiver = try #require(makeSession(ssrc_any_inbound))
        defer { srtp_dealloc(sender); srtp_dealloc(receiver) }

        // RTP v2, PT 8 (PCMA), seq 1, ts 160, SSRC 0x11223344, 160 bytes of A-law silence.
        var packet: [UInt8] = [0x80, 0x08, 0x00, 0x01, 0x00, 0x00, 0x00, 0xA0, 0x11, 0x22, 0x33, 0x44]
        packet += [UInt8](repeating: 0xD5, count: 160)
        let plain = packet
        packet += [UInt8](repeating: 0, count: Int(SRTP_MAX_TRAILER_LEN))
        var length = Int32(plain.count)
        #expect(srtp_protect(sender, &packet, &length) == srtp_err_status_ok)
        #expect(length == Int32(plain.count + 10))  // 80-bit auth tag
        #expect(Array(packet[12..<Int(plain.count)]) != Array(plain[12...]))
        #expect(srtp_unprotect(receiver, &packet, &length) == srtp_err_status_ok)
        #expect(Array(packet.prefix(Int(length))) == plain)
    }

    @Test func alsaOpensTheNullPCM() {
        _ = astra_alsa_silence_errors()
        var pcm: OpaquePointer?
        let rc = snd_pcm_open(&pcm, "null", SND_PCM_STREAM_PLAYBACK, 0)
        #expect(rc == 0)
        if let pcm {
            #expect(snd_pcm_set_params(pcm, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED, 1, 8000, 1, 100_000) == 0)
            snd_pcm_close(pcm)
        }
    }

    @Test func curlReportsItsVersion() {
        let version = String(cString: curl_version())
        #expect(version.hasPrefix("libcurl/"))
        let info = curl_version_info(CURLVERSION_TENTH)
        #expect(info != nil)
    }

    @Test func qrencodeEncodesASIPURI() throws {
        let code = try #require(QRcode_encodeString("sip:alice@example.com", 0, QR_ECLEVEL_M, QR_MODE_8, 1))
        defer { QRcode_free(code) }
        #expect(code.pointee.version >= 1)
        #expect(code.pointee.width == code.pointee.version * 4 + 17)  // ISO/IEC 18004 §5.3.1
        // The top-left finder pattern's corner module is dark (bit 0 of each module byte).
        #expect(code.pointee.data[0] & 1 == 1)
    }

    @Test func zbarCreatesAScannerAndAcceptsQRConfig() throws {
        let scanner = try #require(zbar_image_scanner_create())
        defer { zbar_image_scanner_destroy(scanner) }
        #expect(zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_ENABLE, 1) == 0)
        #expect(zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_BINARY, 1) == 0)
        // A blank Y800 image scans to zero symbols without error.
        let image = try #require(zbar_image_create())
        defer { zbar_image_destroy(image) }
        zbar_image_set_format(image, 0x3030_3859)  // fourcc "Y800"
        zbar_image_set_size(image, 64, 64)
        let pixels = UnsafeMutableRawPointer.allocate(byteCount: 64 * 64, alignment: 1)
        pixels.initializeMemory(as: UInt8.self, repeating: 255, count: 64 * 64)
        zbar_image_set_data(image, pixels, 64 * 64, nil)
        #expect(zbar_scan_image(scanner, image) == 0)
        pixels.deallocate()
    }
}

import Testing

@testable import Media

/// Known answers recorded with libsrtp2's own (NSS-backed) crypto before ``SRTPCrypto``
/// replaced AES-ICM-128 and HMAC-SHA1 with OpenSSL: the output must stay bit-identical.
@Suite struct SRTPKnownAnswerTests {
    static let key = (0..<30).map { UInt8($0 &* 7 &+ 3) }

    static func packet(seq: UInt16) -> [UInt8] {
        RTPPacket(
            header: RTPHeader(
                marker: seq == 1, payloadType: 8, sequenceNumber: seq, timestamp: 1000 + UInt32(seq) * 160,
                ssrc: 0xDEAD_BEEF), payload: (0..<160).map { UInt8(truncatingIfNeeded: $0 * 3) }
        ).serialized()
    }

    static func hex(_ b: [UInt8]) -> String { b.map { String(Int($0) + 0x100, radix: 16).dropFirst() }.joined() }

    static let expected: [SRTPProfile: [String]] = [
        .aesCM128HmacSHA1_80: [
            "acb512ac31941fa8095cf78b1c8c9fc1b91ec33e784769edb999ccef2908117b424fe109d0b59b00",
            "8d995f531131e1b08c78898fd4a2c663b4fc66be35937257d2971b4c8de813c3480f4c25dfa702a5",
            "3ae092fc052e5a280a0bf85e9f45d566fe91e55378ae4aafc9b1380922de3a2f6be9f78951623536",
        ],
        .aesCM128HmacSHA1_32: [
            "49dd60aed048acb512ac31941fa8095cf78b1c8c9fc1b91ec33e784769edb999ccef2908117b424f",
            "cd46ca0c6da98d995f531131e1b08c78898fd4a2c663b4fc66be35937257d2971b4c8de813c3480f",
            "09fa1d49f5943ae092fc052e5a280a0bf85e9f45d566fe91e55378ae4aafc9b1380922de3a2f6be9",
        ],
    ]
    static let expectedRTCP = "80c90001deadbeef30c86c9d56c25252a9855bd1adc896f980000001c45f7ed404b8ebc4f708"

    /// Packets 1, 65535 and 0 (the rollover counter increments, RFC 3711 §3.3.1): the last 40
    /// octets (ciphertext and tag) and the whole SRTCP packet.
    @Test(arguments: [SRTPProfile.aesCM128HmacSHA1_80, .aesCM128HmacSHA1_32])
    func protectIsBitIdenticalToLibsrtpNSS(profile: SRTPProfile) throws {
        let tx = try SRTPContext(key: try SRTPKeyMaterial(profile: profile, keyAndSalt: Self.key), direction: .outbound)
        let rx = try SRTPContext(key: try SRTPKeyMaterial(profile: profile, keyAndSalt: Self.key), direction: .inbound)
        for (i, seq) in [UInt16(1), 65535, 0].enumerated() {
            let protected = try tx.protect(Self.packet(seq: seq))
            #expect(Self.hex(Array(protected.suffix(40))) == Self.expected[profile]![i], "seq \(seq)")
            #expect(try rx.unprotect(protected) == Self.packet(seq: seq))
        }
        let rtcp = RTCPPacket.serialize([
            .receiverReport(ssrc: 0xDEAD_BEEF, reports: []),
            .sourceDescription([RTCPSourceChunk(ssrc: 0xDEAD_BEEF, cname: "kat")]),
        ])
        #expect(Self.hex(try tx.protectRTCP(rtcp)) == Self.expectedRTCP)
    }

    @Test func openSSLPrimitivesAreInstalled() {
        #expect(SRTPCrypto.backend == .openSSL)
    }
}

import Testing

@testable import Media

/// Inputs found by `make fuzz` (docs/fuzzing.md), each kept as the regression test of its fix.
@Suite struct FuzzRegressionTests {
    /// rtcp target: an unknown packet type whose body is not a multiple of 4 octets (here 6,
    /// after its P-bit padding) was re-serialized with zero fill and no P bit, so it read back
    /// with 8 body octets. Now the padding is written as RFC 3550 §6.4.1 says.
    @Test func rtcpUnalignedUnknownBodyRoundTrips() throws {
        let crash: [UInt8] = [
            0x80, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0xA0, 0xCD, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01,
            0x00, 0x00, 0x00, 0x02,
        ]
        let packets = try RTCPPacket.parseCompound(crash)
        #expect(packets.last == .other(packetType: 205, body: [0, 0, 0, 1, 0, 0]))
        #expect(try RTCPPacket.parseCompound(RTCPPacket.serialize(packets)) == packets)
        for length in 0..<9 {
            let one: [RTCPPacket] = [.other(packetType: 206, body: (0..<length).map { UInt8($0 + 1) })]
            let bytes = RTCPPacket.serialize(one)
            #expect(bytes.count % 4 == 0)
            #expect(try RTCPPacket.parseCompound(bytes) == one)
        }
    }

    /// rtcp target: a BYE whose 142-octet reason is mostly invalid UTF-8 parsed to 142 U+FFFD
    /// (426 octets of UTF-8); writing it cut the octets at 255, in the middle of a character,
    /// so it read back as other text (and a long reason or CNAME of our own could go out as
    /// invalid UTF-8). Text is now cut at a character boundary, and parsing yields only what
    /// can be written again.
    @Test func rtcpReasonOfInvalidUTF8RoundTrips() throws {
        let reason = [UInt8(0x8E)] + [UInt8](repeating: 0xFF, count: 142) + [0]
        let bye: [UInt8] = [0x81, 0xCB, 0x00, 0x25, 0x00, 0x00, 0xCA, 0x92] + reason
        #expect(bye.count == 4 * (0x25 + 1))
        let packets = try RTCPPacket.parseCompound(bye)
        guard case .bye(_, let text?) = packets.first else {
            Issue.record("no BYE reason parsed")
            return
        }
        #expect(text.utf8.count <= 255)
        #expect(try RTCPPacket.parseCompound(RTCPPacket.serialize(packets)) == packets)
        // Our own text over 255 octets: cut before the character that does not fit.
        let long = String(repeating: "é", count: 200)  // 400 octets
        let wire = RTCPPacket.serialize([.bye(ssrcs: [1], reason: long)])
        #expect(wire[8] == 254)
        #expect(String(validating: wire[9..<(9 + 254)], as: UTF8.self) == String(repeating: "é", count: 127))
    }

    /// wav target: a 2 KB file whose header says 1 Hz took seconds and 16 MB to resample to
    /// 8 kHz for `astra-call --play` (a 2 MB one, 16 GB). Rates outside 1–384 kHz are refused.
    @Test func wavWithAbsurdSampleRateIsRefused() throws {
        for rate in [1, 999, 384_001, Int(UInt32.max)] {
            var bytes = WAVFile(sampleRate: 8000, samples: [Int16](repeating: 100, count: 1000)).serialized()
            for i in 0..<4 { bytes[24 + i] = UInt8(truncatingIfNeeded: rate >> (8 * i)) }
            #expect(throws: MediaError(.badWAV)) { try WAVFile(bytes: bytes) }
        }
        for rate in [1_000, 8_000, 44_100, 384_000] {
            let wav = try WAVFile(bytes: WAVFile(sampleRate: rate, samples: [1, 2, 3]).serialized())
            #expect(wav.sampleRate == rate)
        }
    }

    /// sdp target (minimized from 268 bytes): `m=a 0 \r ` took the CR as its protocol, which
    /// was written back as `m=a 0 \r\r\n`: read again, the line ended at the CR and had no
    /// protocol. RFC 8866 allows a CR in no field; such a line is refused.
    @Test func sdpLineHoldingACRIsRefused() {
        let crash = "v=0\no= 1 0   \ns=\nc=IN IP6 .\nt=9 3\nm=a 0 \r "
        #expect(throws: MediaError.self) { try SessionDescription(parsing: crash) }
        do { _ = try SessionDescription(parsing: crash) } catch {
            #expect(error.detail == "line 6: a CR inside the line", "\(error.detail)")
        }
        for body in ["v=0\r\no=- 1 0 IN IP4 192.0.2.1\r\ns=\rx\r\nt=0 0\r\n", "v=0\ns=a\rb\n"] {
            #expect(throws: MediaError.self) { try SessionDescription(parsing: body) }
        }
        let fine = try? SessionDescription(parsing: "v=0\r\no=- 1 0 IN IP4 192.0.2.1\r\ns=-\r\nt=0 0\r\r\n")
        #expect(fine != nil, "a CR before the CRLF stays a line ending")
    }
}

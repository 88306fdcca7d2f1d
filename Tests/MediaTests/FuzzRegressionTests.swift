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
}

import Testing

@testable import Media

@Suite struct RTPTests {
    @Test func headerRoundTripsWithCSRCsExtensionAndPadding() throws {
        let header = RTPHeader(
            marker: true, payloadType: 8, sequenceNumber: 0xFFFF, timestamp: 0xFFFF_FF60, ssrc: 0x1122_3344,
            csrcs: [1, 0xDEAD_BEEF], headerExtension: .init(profile: 0xBEDE, data: [1, 2, 3, 4, 5, 6, 7, 8]))
        let packet = RTPPacket(header: header, payload: [0xD5, 0xD4, 0x55], paddingCount: 5)
        let bytes = packet.serialized()
        #expect(bytes.count == 12 + 8 + 4 + 8 + 3 + 5)
        #expect(bytes[0] == 0x80 | 0x20 | 0x10 | 2)
        #expect(bytes[1] == 0x88)
        #expect(bytes.last == 5)
        let parsed = try RTPPacket(parsing: bytes)
        #expect(parsed.header == header)
        #expect(parsed.payload == [0xD5, 0xD4, 0x55])
        #expect(parsed.paddingCount == 5)
    }

    @Test func malformedPacketsThrowTypedErrors() {
        #expect(throws: MediaError(.malformedPacket)) { try RTPPacket(parsing: [0x80, 0, 0]) }
        #expect(throws: MediaError(.malformedPacket)) {
            try RTPPacket(parsing: [0x40] + [UInt8](repeating: 0, count: 11))
        }
        #expect(throws: MediaError(.malformedPacket)) {
            try RTPPacket(parsing: [0x83] + [UInt8](repeating: 0, count: 15))
        }
        // Padding count larger than the payload.
        #expect(throws: MediaError(.malformedPacket)) {
            try RTPPacket(parsing: [0xA0] + [UInt8](repeating: 0, count: 11) + [9])
        }
        // Extension length overruns.
        #expect(throws: MediaError(.malformedPacket)) {
            try RTPPacket(parsing: [0x90] + [UInt8](repeating: 0, count: 11) + [0xBE, 0xDE, 0, 4])
        }
    }

    @Test func senderWrapsSequenceAndTimestamp() {
        var sender = RTPSender(ssrc: 7, initialSequenceNumber: 0xFFFE, initialTimestamp: 0xFFFF_FF00)
        var seqs: [UInt16] = []
        var stamps: [UInt32] = []
        for _ in 0..<4 {
            let h = sender.nextHeader(payloadType: 8, payloadSize: 160)
            seqs.append(h.sequenceNumber)
            stamps.append(h.timestamp)
            sender.advanceTimestamp(by: 160)
        }
        #expect(seqs == [0xFFFE, 0xFFFF, 0, 1])
        #expect(stamps == [0xFFFF_FF00, 0xFFFF_FFA0, 0x40, 0xE0])
        #expect(sender.packetCount == 4 && sender.octetCount == 640)
        #expect(RTPSerial.isNewer(1, than: 0xFFFF))
        #expect(RTPSerial.distance(UInt16(2), UInt16(0xFFFE)) == 4)
        #expect(RTPSerial.distance(UInt32(0x10), UInt32(0xFFFF_FFF0)) == 0x20)
    }

    @Test func receptionStatisticsCountLossAcrossWrapAndReordering() {
        var stats = RTPReceptionStatistics(ssrc: 9, firstSequenceNumber: 65530)
        // Sequence 65530…(65530+99) mod 2^16, drop every 10th, swap two neighbours.
        var seqs: [UInt16] = (0..<100).map { UInt16(truncatingIfNeeded: 65530 + $0) }
        seqs.swapAt(40, 41)
        let sent = seqs.enumerated().filter { $0.offset % 10 != 5 }.map(\.element)
        for (i, s) in sent.enumerated() {
            stats.update(sequenceNumber: s, timestamp: UInt32(i) * 160, arrival: UInt32(i) * 160)
        }
        // The first packet is probation (RFC 3550 A.1): counting starts at the second.
        #expect(stats.extendedHighestSequence == 0x1_0000 | UInt32((65530 + 99) & 0xFFFF))
        #expect(stats.expected == 99)
        #expect(stats.cumulativeLost == 10)
        let block = stats.makeReportBlock()
        #expect(block.cumulativeLost == 10)
        #expect(block.fractionLost == UInt8((10 * 256) / 99))
        #expect(stats.jitter < 1)  // perfectly paced arrivals
        let next = stats.makeReportBlock()
        #expect(next.fractionLost == 0)
    }

    @Test func jitterEstimateFollowsRFC3550AppendixA8() {
        var stats = RTPReceptionStatistics(ssrc: 1, firstSequenceNumber: 0)
        // Arrivals alternate ±80 timestamp units (10 ms) around the ideal: |D| = 160 each time.
        for i in 0..<2000 {
            let ts = UInt32(i * 160)
            stats.update(sequenceNumber: UInt16(i), timestamp: ts, arrival: ts &+ (i % 2 == 0 ? 0 : 160))
        }
        #expect(abs(stats.jitter - 160) < 1)
    }

    @Test func rtcpCompoundRoundTripsSRRRSDESBYE() throws {
        let block = RTCPReportBlock(
            ssrc: 0xAABB_CCDD, fractionLost: 25, cumulativeLost: -3, extendedHighestSequence: 0x1_0005,
            jitter: 42, lastSR: 0x1234_5678, delaySinceLastSR: 65536)
        let packets: [RTCPPacket] = [
            .senderReport(
                RTCPSenderReport(
                    ssrc: 1, ntpTimestamp: 0x0102_0304_0506_0708, rtpTimestamp: 160, packetCount: 50,
                    octetCount: 8000, reports: [block])),
            .receiverReport(ssrc: 2, reports: [block, block]),
            .sourceDescription([
                RTCPSourceChunk(ssrc: 1, cname: "alice@example.com"), RTCPSourceChunk(ssrc: 3, cname: "b"),
            ]),
            .bye(ssrcs: [1], reason: "call ended"),
            .other(packetType: 205, body: [0, 0, 0, 1, 0, 0, 0, 2]),
        ]
        let bytes = RTCPPacket.serialize(packets)
        #expect(bytes.count % 4 == 0)
        #expect(bytes[0] == 0x81 && bytes[1] == 200 && bytes[3] == 12)  // SR with 1 block: 13 words
        #expect(try RTCPPacket.parseCompound(bytes) == packets)
        #expect(PacketDemultiplexer.classify(bytes) == .rtcp)
        #expect(throws: MediaError(.malformedPacket)) { try RTCPPacket.parseCompound(Array(bytes.dropLast(4))) }
    }

    @Test func roundTripTimeFromReportBlock() {
        // RFC 3550 §6.4.1 example: A = 0xb710:8000 (46864.500 s), LSR = 0xb705:2000 (46853.125 s),
        // DLSR = 0x0005:4000 (5.250 s) → RTT 6.125 s.
        let block = RTCPReportBlock(
            ssrc: 1, fractionLost: 0, cumulativeLost: 0, extendedHighestSequence: 0, jitter: 0,
            lastSR: 0xB705_2000, delaySinceLastSR: 0x0005_4000)
        #expect(block.roundTripTime(arrivalCompactNTP: 0xB710_8000) == .milliseconds(6125))
    }

    @Test func demultiplexerFollowsRFC7983AndRFC5761() {
        #expect(PacketDemultiplexer.classify([0x00, 0x01]) == .stun)
        #expect(PacketDemultiplexer.classify([22, 0xFE]) == .dtls)
        #expect(PacketDemultiplexer.classify([0x80, 8]) == .rtp)
        #expect(PacketDemultiplexer.classify([0x80, 0x80 | 101]) == .rtp)
        #expect(PacketDemultiplexer.classify([0x80, 200]) == .rtcp)
        #expect(PacketDemultiplexer.classify([0x81, 201]) == .rtcp)
        #expect(PacketDemultiplexer.classify([0xFF, 0]) == .unknown)
        #expect(PacketDemultiplexer.classify([]) == .unknown)
    }
}

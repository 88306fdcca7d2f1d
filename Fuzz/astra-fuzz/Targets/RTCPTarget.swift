import Media

/// RTCP compound packets (RFC 3550 §6): SR, RR, SDES, BYE and unknown types, and the
/// round-trip time the call statistics take from a report block (§6.4.1). Seeds: compounds our
/// sender writes.
///
/// Invariant: parse → serialize → parse gives the same packets.
enum RTCPTarget {
    static let target = FuzzTarget(
        name: "rtcp",
        summary: "RTCP compound parser, serializer round trip, report-block RTT (RFC 3550 §6)",
        maxLength: 4096, seeds: seeds, run: run)

    static func run(_ bytes: [UInt8]) {
        guard let packets = try? RTCPPacket.parseCompound(bytes) else { return }
        let again = try? RTCPPacket.parseCompound(RTCPPacket.serialize(packets))
        invariant(again == packets, "RTCP compound does not survive serialize → parse")
        for packet in packets {
            switch packet {
            case .senderReport(let sr):
                _ = sr.compactNTP
                for block in sr.reports { _ = block.roundTripTime(arrivalCompactNTP: sr.compactNTP &+ 65_536) }
            case .receiverReport(_, let reports):
                for block in reports { _ = block.roundTripTime(arrivalCompactNTP: 0xFFFF_FFFF) }
            default:
                break
            }
        }
    }

    static func seeds() -> [[UInt8]] {
        let block = RTCPReportBlock(
            ssrc: 0x1234_5678, fractionLost: 12, cumulativeLost: -3, extendedHighestSequence: 65_600, jitter: 40,
            lastSR: 0xDEAD_BEEF, delaySinceLastSR: 65_536)
        let sr = RTCPSenderReport(
            ssrc: 0x0BAD_F00D, ntpTimestamp: 0xE5E5_0000_1234_5678, rtpTimestamp: 160, packetCount: 50,
            octetCount: 8000,
            reports: [block])
        let compounds: [[RTCPPacket]] = [
            [.senderReport(sr), .sourceDescription([RTCPSourceChunk(ssrc: 0x0BAD_F00D, cname: "astra@192.0.2.1")])],
            [
                .receiverReport(ssrc: 1, reports: [block, block]),
                .sourceDescription([RTCPSourceChunk(ssrc: 1, cname: "x")]),
            ],
            [.receiverReport(ssrc: 1, reports: []), .bye(ssrcs: [1, 2], reason: "hang up")],
            [.receiverReport(ssrc: 1, reports: []), .other(packetType: 205, body: [0, 0, 0, 1, 0, 0, 0, 2])],
        ]
        return compounds.map(RTCPPacket.serialize)
    }
}

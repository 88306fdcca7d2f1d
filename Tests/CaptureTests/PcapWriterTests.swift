import AstraTestSupport
import Capture
import Foundation
import Testing

@testable import Capture

/// The classic pcap format, byte by byte (draft-ietf-opsawg-pcap §4, §5; RFC 791/768/9293
/// headers), and Wireshark's own reading of what we write.
@Suite struct PcapWriterTests {
    typealias F = CaptureFixtures

    @Test func fileHeaderIsLittleEndianMicrosecondRawIP() {
        #expect(
            PcapWriter.fileHeader() == [
                0xD4, 0xC3, 0xB2, 0xA1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x00, 0x04, 0x00, 101, 0, 0, 0,
            ])
    }

    @Test func udpRecordHasValidHeadersAndChecksums() {
        var writer = PcapWriter()
        let packet = F.packet(20, .sent, F.invite, transport: .udp)
        let record = writer.records(packet)
        let length = F.invite.count + 28
        #expect(record.count == 16 + length)
        #expect(Self.le32(record, 0) == 1_764_486_301)
        #expect(Self.le32(record, 4) == 20_123)  // microseconds
        #expect(Self.le32(record, 8) == UInt32(length))
        #expect(Self.le32(record, 12) == UInt32(length))
        let ip = Array(record[16...])
        #expect(ip[0] == 0x45 && ip[9] == 17)
        #expect(Int(ip[2]) << 8 | Int(ip[3]) == length)
        #expect(PcapWriter.internetChecksum(Array(ip[0..<20])) == 0, "IPv4 header checksum")
        #expect(Array(ip[12..<16]) == [127, 0, 0, 1])
        #expect(Int(ip[20]) << 8 | Int(ip[21]) == 5062 && Int(ip[22]) << 8 | Int(ip[23]) == 5060)
        #expect(PcapWriter.transportChecksum(packet, protocol: 17, segment: Array(ip[20...])) == 0, "UDP checksum")
        #expect(Array(ip[28...]) == F.invite)
    }

    @Test func tcpSequenceNumbersCountEachDirection() {
        var writer = PcapWriter()
        let first = writer.records(F.packet(0, .sent, F.register1))
        let answer = writer.records(F.packet(4, .received, F.challenge))
        let second = writer.records(F.packet(6, .sent, F.register2))
        func seqAck(_ record: [UInt8]) -> (UInt32, UInt32) { (Self.be32(record, 16 + 24), Self.be32(record, 16 + 28)) }
        #expect(seqAck(first) == (1, 1))
        #expect(seqAck(answer) == (1, 1 + UInt32(F.register1.count)))
        #expect(seqAck(second) == (1 + UInt32(F.register1.count), 1 + UInt32(F.challenge.count)))
        #expect(first[16 + 9] == 6 && first[16 + 33] == 0x18, "TCP, PSH|ACK")
    }

    @Test func rtpPayloadIsCutUnlessAsked() {
        var cut = PcapWriter()
        var whole = PcapWriter(rtpPayload: true)
        let packet = F.packet(40, .sent, F.rtp(sequence: 1, timestamp: 0), transport: .udp, content: .rtp)
        let short = cut.records(packet), full = whole.records(packet)
        #expect(Self.le32(short, 8) == 20 + 8 + 12 && Self.le32(short, 12) == 20 + 8 + 172)
        #expect(short.count == 16 + 40)
        #expect(Self.le32(full, 8) == 200 && full.count == 216)
    }

    @Test func rtpHeaderLengthCountsCSRCsAndExtension() {
        var packet: [UInt8] = [0x92, 0, 0, 1] + Array(repeating: 0, count: 8) + Array(repeating: 0, count: 8)
        packet += [0xBE, 0xDE, 0, 1, 1, 2, 3, 4] + Array(repeating: 0xD5, count: 20)
        #expect(PcapWriter.rtpHeaderLength(packet) == 12 + 8 + 4 + 4)
        #expect(PcapWriter.rtpHeaderLength([0x80, 0]) == 2)
    }

    @Test func ipv6PacketsCarryTheIPv6Header() throws {
        var writer = PcapWriter()
        var packet = F.packet(0, .sent, F.register1, transport: .udp)
        packet.local = try #require(.init(ip: "::1", port: 5062))
        packet.remote = try #require(.init(ip: "::1", port: 5060))
        let record = writer.records(packet)
        #expect(record[16] >> 4 == 6 && record[16 + 6] == 17)
        #expect(Int(record[20]) << 8 | Int(record[21]) == 8 + F.register1.count)
        #expect(PcapWriter.transportChecksum(packet, protocol: 17, segment: Array(record[56...])) == 0)
    }

    /// Wireshark's dissectors read the file: every SIP message as SIP (TCP for WSS, UDP for
    /// UDP), and the RTP on the port the INVITE's SDP announced as RTP.
    @Test func tsharkDissectsSIPAndRTP() async throws {
        let path = F.temporaryPath("pcap") + ".pcap"
        defer { try? FileManager.default.removeItem(atPath: path) }
        var writer = PcapWriter()
        var file = PcapWriter.fileHeader()
        for packet in F.call { file += writer.records(packet) }
        try Data(file).write(to: URL(fileURLWithPath: path))
        let sip = try await Tshark.fields(path, filter: "sip", ["frame.protocols", "sip.Method", "sip.Status-Code"])
        #expect(sip.count == 6, "\(sip)")
        #expect(sip.map { $0[1] + $0[2] } == ["REGISTER", "401", "REGISTER", "200", "INVITE", "486"])
        #expect(sip.prefix(4).allSatisfy { $0[0].contains(":tcp:sip") }, "\(sip)")
        #expect(sip.suffix(2).allSatisfy { $0[0].contains(":udp:sip") }, "\(sip)")
        let rtp = try await Tshark.fields(path, filter: "rtp", ["rtp.ssrc", "rtp.seq"])
        #expect(rtp.count == 20, "\(rtp)")
        #expect(Set(rtp.map { $0[0] }) == ["0x12345678", "0x0badcafe"])
        let malformed = try await Tshark.fields(path, filter: "_ws.malformed || _ws.expert.severity >= error", ["frame.number"])
        #expect(malformed.isEmpty, "\(malformed)")
    }

    static func le32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24
    }

    static func be32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }
}

import AstraTestSupport
import Capture
import Foundation
import Testing

/// The tests' pcap reader against our writer (raw IP, UDP and TCP framing) and against a file
/// cut in the middle of a record, as a capture still being written looks.
@Suite struct PcapReaderTests {
    typealias F = CaptureFixtures

    static func file(_ packets: [CapturedPacket]) -> [UInt8] {
        var writer = PcapWriter()
        return PcapWriter.fileHeader() + packets.flatMap { writer.records($0) }
    }

    @Test func readsTheSIPFlowAndPortsOurWriterWrote() {
        let packets = PcapReader.packets(Self.file(F.call))
        #expect(packets.count == F.call.count)
        #expect(packets.compactMap { PcapReader.sipStart($0.payload) } == ["REGISTER", "401", "REGISTER", "200", "INVITE", "486"])
        #expect(packets[0].transport == 6 && packets[0].sourcePort == 40_112 && packets[0].destinationPort == 8443)
        #expect(packets[4].transport == 17 && packets[4].payload == F.invite)
    }

    @Test func aRecordStillBeingWrittenIsNotThereYet() {
        let whole = Self.file(Array(F.call.prefix(5)))
        let cut = Array(whole.dropLast(10))
        #expect(PcapReader.packets(cut).compactMap { PcapReader.sipStart($0.payload) } == ["REGISTER", "401", "REGISTER", "200"])
        #expect(PcapReader.packets(Array(whole.prefix(30))).isEmpty)
        #expect(PcapReader.packets(Array("not a pcap file at all, no".utf8)).isEmpty)
    }

    @Test func startLinesAreRequestsAndResponsesOnly() {
        #expect(PcapReader.sipStart(Array("BYE sip:a@b SIP/2.0\r\nVia: x\r\n".utf8)) == "BYE")
        #expect(PcapReader.sipStart(Array("SIP/2.0 180 Ringing\r\n".utf8)) == "180")
        #expect(PcapReader.sipStart(Array("a=rtpmap:8 PCMA/8000\r\n".utf8)) == nil)
        #expect(PcapReader.sipStart(Array("GET / HTTP/1.1\r\n".utf8)) == nil)
        #expect(PcapReader.sipStart(Array("INVITE sip:a@b SIP/2.0".utf8)) == nil, "no line end yet")
    }
}

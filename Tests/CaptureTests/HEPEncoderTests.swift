import AstraTestSupport
import Foundation
import SIPTransport
import Testing

@testable import Capture

/// HEP3 packets: the chunk layout of the HEP3 specification, read back chunk by chunk, and
/// Wireshark's HEP dissector finding the SIP inside.
@Suite struct HEPEncoderTests {
    typealias F = CaptureFixtures

    /// (vendor, type) → value of every chunk; the header's length must be the datagram's.
    static func chunks(_ packet: [UInt8]) throws -> [UInt16: [UInt8]] {
        try #require(Array(packet.prefix(4)) == Array("HEP3".utf8))
        try #require(Int(packet[4]) << 8 | Int(packet[5]) == packet.count)
        var chunks: [UInt16: [UInt8]] = [:]
        var index = 6
        while index < packet.count {
            let vendor = UInt16(packet[index]) << 8 | UInt16(packet[index + 1])
            let type = UInt16(packet[index + 2]) << 8 | UInt16(packet[index + 3])
            let length = Int(packet[index + 4]) << 8 | Int(packet[index + 5])
            try #require(vendor == 0 && length >= 6 && index + length <= packet.count)
            chunks[type] = Array(packet[(index + 6)..<(index + length)])
            index += length
        }
        return chunks
    }

    @Test func ipv4OverTCPWithIDAndKey() throws {
        let encoder = HEPEncoder(captureID: 2_001, authKey: "homer-secret")
        let packet = try #require(encoder.packet(F.packet(6, .sent, F.register2), correlationID: "reg-1@astra"))
        let c = try Self.chunks(packet)
        #expect(c[0x0001] == [2])
        #expect(c[0x0002] == [6])
        #expect(c[0x0003] == [127, 0, 0, 1] && c[0x0004] == [127, 0, 0, 1])
        #expect(c[0x0007] == [0x9C, 0xB0] && c[0x0008] == [0x20, 0xFB])  // 40112 → 8443
        #expect(c[0x0009] == HEPEncoder.be32(1_764_486_301))
        #expect(c[0x000A] == HEPEncoder.be32(6_123))  // 6 ms + 123 µs
        #expect(c[0x000B] == [1])
        #expect(c[0x000C] == [0, 0, 0x07, 0xD1])
        #expect(c[0x000E] == Array("homer-secret".utf8))
        #expect(c[0x0011] == Array("reg-1@astra".utf8))
        #expect(c[0x000F] == F.register2)
    }

    @Test func ipv6AndUDPAndNoKey() throws {
        var packet = F.packet(0, .received, F.busy, transport: .udp)
        packet.local = try #require(.init(ip: "::1", port: 5062))
        packet.remote = try #require(.init(ip: "2001:db8::7", port: 5060))
        let c = try Self.chunks(try #require(HEPEncoder().packet(packet)))
        #expect(c[0x0001] == [10] && c[0x0002] == [17])
        #expect(c[0x0005] == [0x20, 0x01, 0x0D, 0xB8] + Array(repeating: 0, count: 11) + [7])
        #expect(c[0x0006] == Array(repeating: 0, count: 15) + [1])
        #expect(c[0x0003] == nil && c[0x000E] == nil && c[0x0011] == nil)
    }

    @Test func tooLargeForOneHEPPacketIsNil() {
        let huge = F.packet(0, .sent, Array(repeating: 0x41, count: 70_000))
        #expect(HEPEncoder().packet(huge) == nil)
    }

    /// sngrep, listening for HEP (`-L`), decodes our datagrams and writes what it understood
    /// to a pcap file; tshark reads that back as the REGISTER/INVITE flow with our addresses.
    @Test func sngrepDecodesOurHEP() async throws {
        let collector = try await SngrepCollector()
        var configuration = CaptureHub.Configuration()
        configuration.hep = SocketAddress(ip: "127.0.0.1", port: collector.port)
        configuration.hepEncoder = HEPEncoder(captureID: 7)
        let hub = try CaptureHub(configuration)
        for packet in F.call where packet.content == .sip { hub.record(CaptureHubTests.message(packet)) }
        hub.close()
        let path = try await collector.stop(once: { $0.count >= 6 })
        defer { try? FileManager.default.removeItem(atPath: path) }
        let rows = try await Tshark.fields(
            path, filter: "sip", ["ip.src", "tcp.srcport", "udp.srcport", "tcp.dstport", "udp.dstport", "sip.Method",
                                  "sip.Status-Code"])
        #expect(rows.map { $0[5] + $0[6] } == ["REGISTER", "401", "REGISTER", "200", "INVITE", "486"], "\(rows)")
        #expect(rows.first.map { $0[0] + " " + $0[1] + $0[2] + " " + $0[3] + $0[4] } == "127.0.0.1 40112 8443")
        #expect(rows.last.map { $0[2] + " " + $0[4] } == "5060 5062")
    }
}


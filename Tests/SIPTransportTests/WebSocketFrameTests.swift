import SIPCore
import Testing

@testable import SIPTransport

@Suite("RFC 6455 frames")
struct WebSocketFrameTests {
    /// Decodes all frames of `bytes` fed with `chunking`.
    func decodeAll(_ bytes: [UInt8], chunking: Chunking, expectMasked: Bool = false, max: Int = 1 << 20) throws
        -> [WebSocketFrame]
    {
        var decoder = WebSocketFrameDecoder(maxFrameSize: max, expectMasked: expectMasked)
        var frames: [WebSocketFrame] = []
        for chunk in chunking.split(bytes) {
            decoder.append(chunk)
            while let frame = try decoder.next() { frames.append(frame) }
        }
        #expect(decoder.bufferedByteCount == 0)
        return frames
    }

    @Test("§5.7 examples decode and re-encode exactly", arguments: Chunking.allCases)
    func rfcExamples(chunking: Chunking) throws {
        let json = try Vectors.json()
        let frames = json["rfc6455_5.7_frames"] as! [[String: Any]]
        var checked = 0
        for vector in frames {
            if let hex = vector["bytes_hex"] as? String {
                let bytes = Vectors.hex(hex)
                let masked = bytes[1] & 0x80 != 0
                let decoded = try decodeAll(bytes, chunking: chunking, expectMasked: masked)
                #expect(decoded.count == 1)
                #expect(decoded[0].payload == Array((vector["payload_text"] as! String).utf8))
                #expect(decoded[0].encoded() == bytes, "\(vector["description"]!)")
                checked += 1
            } else {
                let header = Vectors.hex(vector["header_hex"] as! String)
                let length = vector["payload_length"] as! Int
                let payload = (0..<length).map { UInt8($0 & 0xFF) }
                let frame = WebSocketFrame(opcode: .binary, payload: payload)
                #expect(Array(frame.encoded().prefix(header.count)) == header)
                let decoded = try decodeAll(header + payload, chunking: chunking == .byteByByte ? .random1 : chunking)
                #expect(decoded == [frame])
                checked += 1
            }
        }
        #expect(checked == 8)
        // The self-computed RFC 7118 §8.1 F3 REGISTER frame (masked with 37fa213d).
        let sip = json["derived_sip_over_ws_frame"] as! [String: Any]
        let register = try Vectors.data("rfc7118_8.1_F3_REGISTER.dat")
        let wire = Vectors.hex(sip["frame_hex"] as! String)
        #expect(WebSocketFrame(opcode: .text, maskingKey: 0x37FA_213D, payload: register).encoded() == wire)
        #expect(try decodeAll(wire, chunking: chunking, expectMasked: true).first?.payload == register)
    }

    @Test("7-, 16- and 64-bit lengths, masked and unmasked", arguments: [0, 1, 125, 126, 127, 65_535, 65_536, 70_000])
    func lengths(length: Int) throws {
        let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        for key in [nil, UInt32(0xA1B2_C3D4)] {
            let frame = WebSocketFrame(opcode: .binary, maskingKey: key, payload: payload)
            let bytes = frame.encoded()
            let expectedHeader = length < 126 ? 2 : (length <= 65_535 ? 4 : 10)
            #expect(bytes.count == expectedHeader + (key == nil ? 0 : 4) + length)
            #expect(bytes[1] & 0x7F == (length < 126 ? UInt8(length) : (length <= 65_535 ? 126 : 127)))
            if let key, length > 0 { #expect(bytes[expectedHeader + 4] == payload[0] ^ UInt8(key >> 24)) }
            #expect(try decodeAll(bytes, chunking: .random2, expectMasked: key != nil) == [frame])
        }
    }

    @Test(
        "Protocol errors carry the close code",
        arguments: [
            ("RSV1 set", [0xC1, 0x00], WebSocketCloseCode.protocolError),
            ("unknown opcode 3", [0x83, 0x00], .protocolError),
            ("masked frame from a server", [0x81, 0x80, 1, 2, 3, 4], .protocolError),
            ("fragmented ping", [0x09, 0x00], .protocolError),
            ("ping with 126 bytes", [0x89, 0x7E, 0x00, 0x7E], .protocolError),
            ("64-bit length MSB set", [0x82, 0x7F, 0x80, 0, 0, 0, 0, 0, 0, 1], .protocolError),
            ("frame over the limit", [0x82, 0x7F, 0, 0, 0, 1, 0, 0, 0, 0], .messageTooBig),
        ] as [(String, [UInt8], WebSocketCloseCode)])
    func errors(name: String, bytes: [UInt8], code: WebSocketCloseCode) {
        var decoder = WebSocketFrameDecoder(maxFrameSize: 1024, expectMasked: false)
        decoder.append(bytes)
        #expect(throws: WebSocketProtocolError.self, "\(name)") { try decoder.next() }
        do { _ = try decoder.next() } catch { #expect(error.closeCode == code, "\(name)") }
    }
}

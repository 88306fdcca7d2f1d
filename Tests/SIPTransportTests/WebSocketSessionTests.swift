import SIPCore
import Testing

@testable import SIPTransport

@Suite("RFC 6455 messages, control frames and closing")
struct WebSocketSessionTests {
    func server(_ frames: [WebSocketFrame]) -> [UInt8] { frames.flatMap { $0.encoded() } }

    func run(_ bytes: [UInt8], chunking: Chunking, max: Int = 1 << 20) -> (WebSocketSession, [WebSocketSession.Output])
    {
        var session = WebSocketSession(role: .client, maxMessageSize: max, maskSource: SeededIdentifierSource(seed: 7))
        var outputs: [WebSocketSession.Output] = []
        for chunk in chunking.split(bytes) { outputs += session.receive(chunk) }
        return (session, outputs)
    }

    @Test("Fragments with control frames between them", arguments: Chunking.allCases)
    func fragments(chunking: Chunking) {
        let bytes = server([
            WebSocketFrame(fin: false, opcode: .text, payload: Array("OPTIONS sip:a SIP/2.0\r\n".utf8)),
            WebSocketFrame(opcode: .ping, payload: Array("p1".utf8)),
            WebSocketFrame(fin: false, opcode: .continuation, payload: Array("Via: x\r\n".utf8)),
            WebSocketFrame(opcode: .pong, payload: Array("k".utf8)),
            WebSocketFrame(fin: true, opcode: .continuation, payload: Array("\r\n".utf8)),
            WebSocketFrame(opcode: .binary, payload: [0, 1, 2]),
        ])
        let (_, outputs) = run(bytes, chunking: chunking)
        #expect(outputs.count == 4)
        guard outputs.count == 4 else { return }
        // The pong to our ping answer is masked (client role) and echoes the payload.
        guard case .send(let pong) = outputs[0] else {
            Issue.record("no pong")
            return
        }
        var decoder = WebSocketFrameDecoder(expectMasked: true)
        decoder.append(pong)
        let frame = try? decoder.next()
        #expect(frame?.opcode == .pong && frame?.payload == Array("p1".utf8) && frame?.maskingKey != nil)
        #expect(outputs[1] == .pong(Array("k".utf8)))
        #expect(outputs[2] == .message(Array("OPTIONS sip:a SIP/2.0\r\nVia: x\r\n\r\n".utf8), binary: false))
        #expect(outputs[3] == .message([0, 1, 2], binary: true))
    }

    @Test("Server-initiated close is echoed, then closed", arguments: Chunking.allCases)
    func peerClose(chunking: Chunking) {
        let bytes = server([WebSocketFrame(opcode: .close, payload: [0x03, 0xE9] + Array("going".utf8))])
        let (session, outputs) = run(bytes, chunking: chunking)
        #expect(session.isClosed)
        guard outputs.count == 2, case .send(let echo) = outputs[0] else {
            Issue.record("\(outputs)")
            return
        }
        var decoder = WebSocketFrameDecoder(expectMasked: true)
        decoder.append(echo)
        let frame = try? decoder.next()
        #expect(frame?.opcode == .close && frame?.payload == [0x03, 0xE9])
        #expect(outputs[1] == .closed(code: .goingAway, reason: "going"))
    }

    @Test("Client-initiated close handshake")
    func clientClose() {
        var session = WebSocketSession(role: .client, maskSource: SeededIdentifierSource(seed: 1))
        let frame = session.close(code: .normal, reason: "bye")
        #expect(frame != nil)
        #expect(session.close() == nil)
        // Data after our Close is dropped; the peer's Close completes the handshake.
        let outputs = session.receive(
            server([
                WebSocketFrame(opcode: .text, payload: Array("late".utf8)),
                WebSocketFrame(opcode: .close, payload: [0x03, 0xE8]),
            ]))
        #expect(outputs == [.closed(code: .normal, reason: "")])
        #expect(session.isClosed)
    }

    @Test(
        "Violations fail the connection with the right close code",
        arguments: [
            (
                "continuation without start", [WebSocketFrame(opcode: .continuation, payload: [1])],
                WebSocketCloseCode.protocolError
            ),
            (
                "new message inside a fragmented one",
                [
                    WebSocketFrame(fin: false, opcode: .text, payload: [65]),
                    WebSocketFrame(opcode: .text, payload: [66]),
                ], .protocolError
            ),
            ("invalid UTF-8 text", [WebSocketFrame(opcode: .text, payload: [0xC3, 0x28])], .invalidPayload),
            ("close code 1005 on the wire", [WebSocketFrame(opcode: .close, payload: [0x03, 0xED])], .protocolError),
            ("1-byte close payload", [WebSocketFrame(opcode: .close, payload: [0x03])], .protocolError),
            (
                "message over the limit in fragments",
                [
                    WebSocketFrame(fin: false, opcode: .binary, payload: Array(repeating: 1, count: 60)),
                    WebSocketFrame(fin: true, opcode: .continuation, payload: Array(repeating: 1, count: 60)),
                ], .messageTooBig
            ),
        ] as [(String, [WebSocketFrame], WebSocketCloseCode)])
    func violations(name: String, frames: [WebSocketFrame], code: WebSocketCloseCode) {
        for chunking in Chunking.allCases {
            let (session, outputs) = run(server(frames), chunking: chunking, max: 100)
            #expect(session.isClosed, "\(name)")
            guard let last = outputs.last, case .failed(let error) = last else {
                Issue.record("\(name): \(outputs)")
                continue
            }
            #expect(error.closeCode == code, "\(name)")
            // A Close frame carrying the code goes out first (§7.1.7).
            guard outputs.count >= 2, case .send(let close) = outputs[outputs.count - 2] else {
                Issue.record("\(name): no Close")
                continue
            }
            var decoder = WebSocketFrameDecoder(expectMasked: true)
            decoder.append(close)
            let frame = try? decoder.next()
            #expect(
                frame?.payload.prefix(2) == [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)][...], "\(name)")
        }
    }

    @Test("Client frames are masked with keys from the injected source")
    func masking() {
        let session = WebSocketSession(role: .client, maskSource: SeededIdentifierSource(seed: 3))
        let wire = session.frame(message: Array("hi".utf8))
        #expect(wire[1] & 0x80 != 0)
        let key = UInt32(truncatingIfNeeded: SeededIdentifierSource(seed: 3).nextUInt64() >> 32)
        #expect(wire[2...5] == WebSocketFrame.keyBytes(key)[...])
    }

    @Test("Shuffled: random fragmentation, control frames at random places, random chunking", arguments: 1...40)
    func shuffled(seed: UInt64) {
        var rng = SplitMix(seed: seed)
        let payload = (0..<Int(rng.next() % 3000)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        let pieces = max(1, Int(rng.next() % 6) + 1)
        var frames: [WebSocketFrame] = []
        var offset = 0
        for i in 0..<pieces {
            let end = i == pieces - 1 ? payload.count : min(payload.count, offset + Int(rng.next() % 800))
            frames.append(
                WebSocketFrame(
                    fin: i == pieces - 1, opcode: i == 0 ? .binary : .continuation,
                    payload: Array(payload[offset..<end])))
            offset = end
        }
        var pings = 0
        var pongs = 0
        for _ in 0..<Int(rng.next() % 5) {
            let isPing = rng.next() & 1 == 0
            let at = Int(rng.next() % UInt64(frames.count + 1))
            frames.insert(WebSocketFrame(opcode: isPing ? .ping : .pong, payload: [UInt8(at)]), at: at)
            if isPing { pings += 1 } else { pongs += 1 }
        }
        let bytes = server(frames)
        var session = WebSocketSession(role: .client, maskSource: SeededIdentifierSource(seed: seed))
        var outputs: [WebSocketSession.Output] = []
        var i = 0
        while i < bytes.count {
            let n = Int(rng.next() % 64) + 1
            outputs += session.receive(bytes[i..<min(bytes.count, i + n)])
            i += n
        }
        #expect(outputs.filter { if case .message = $0 { true } else { false } } == [.message(payload, binary: true)])
        #expect(outputs.filter { if case .send = $0 { true } else { false } }.count == pings)
        #expect(outputs.filter { if case .pong = $0 { true } else { false } }.count == pongs)
        #expect(!session.isClosed)
    }
}

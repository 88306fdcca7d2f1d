import SIPCore
import SIPTransport

/// RFC 6455 frames and the data-transfer / closing state machine (``WebSocketSession``) in both
/// roles, as the SIP-over-WebSocket transport (RFC 7118) feeds them. The first input byte picks
/// the role and the chunk size; the rest is the stream from the peer. Seeds: the RFC 6455 §5.7
/// frames and the SIP vectors framed as a client and a server would send them.
///
/// Invariants: the outputs do not depend on how the bytes are chunked; every decoded frame
/// re-encodes and decodes to itself; every frame the session sends back is one its peer accepts
/// (masked only from a client, control payloads ≤ 125 bytes, §5.5); no delivered message exceeds
/// the limit; nothing comes out after `.closed` / `.failed`.
enum WebSocketTarget {
    static let maxMessageSize = 4096

    static let target = FuzzTarget(
        name: "websocket",
        summary: "WebSocket frame decoder and session, both roles, any chunking (RFC 6455 §5-§7, RFC 7118)",
        maxLength: 16_384, dictionary: "websocket",
        seeds: seeds, run: run)

    static func run(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        let control = input.byte()
        let role: WebSocketSession.Role = control & 1 == 0 ? .server : .client
        let chunk = Int(control >> 1) % 31 + 1
        let stream = input.rest()

        let whole = feed(stream, role: role, chunk: stream.count + 1)
        let chunked = feed(stream, role: role, chunk: chunk)
        invariant(whole == chunked, "outputs depend on chunking (\(chunk)-byte chunks)")
        checkOutputs(whole, role: role)
        checkFrames(stream, masked: role == .server)
    }

    static func feed(_ stream: [UInt8], role: WebSocketSession.Role, chunk: Int) -> [WebSocketSession.Output] {
        var session = WebSocketSession(
            role: role, maxMessageSize: maxMessageSize, maskSource: SeededIdentifierSource(seed: 7))
        var outputs: [WebSocketSession.Output] = []
        var i = 0
        repeat {
            let piece = stream[i..<min(i + chunk, stream.count)]
            outputs += session.receive(piece)
            i += chunk
        } while i < stream.count
        return outputs
    }

    static func checkOutputs(_ outputs: [WebSocketSession.Output], role: WebSocketSession.Role) {
        var ended = false
        for output in outputs {
            invariant(!ended, "output after .closed/.failed")
            switch output {
            case .message(let payload, _):
                invariant(payload.count <= maxMessageSize, "message over the limit delivered")
                if let message = try? SIPMessage(parsing: payload) { SIPTypedHeaders.exercise(message) }
            case .send(let bytes):
                // What we send must be one frame our peer's decoder accepts (§5.1, §5.5).
                var peer = WebSocketFrameDecoder(maxFrameSize: 1 << 20, expectMasked: role == .client)
                peer.append(bytes)
                guard let frame = try? peer.next() else {
                    fatalError("invariant broken: we sent a frame our peer refuses")
                }
                invariant(frame.opcode.isControl && frame.payload.count <= 125, "sent a bad control frame")
                invariant(peer.bufferedByteCount == 0, "sent bytes beyond one frame")
            case .pong:
                break
            case .closed, .failed:
                ended = true
            }
        }
    }

    /// The raw decoder: each frame it yields encodes and decodes back to itself.
    static func checkFrames(_ stream: [UInt8], masked: Bool) {
        var decoder = WebSocketFrameDecoder(maxFrameSize: maxMessageSize, expectMasked: masked)
        decoder.append(stream)
        for _ in 0..<64 {
            guard let frame = try? decoder.next() else { return }
            var again = WebSocketFrameDecoder(maxFrameSize: maxMessageSize, expectMasked: masked)
            again.append(frame.encoded())
            let decoded = try? again.next()
            invariant(decoded == frame, "frame does not survive encode → decode")
        }
    }

    static func seeds() -> [[UInt8]] {
        let vectors = SeedFiles.json("Tests/SIPTransportTests/Vectors/ws_vectors.json")
        var frames: [[UInt8]] = []
        if case .array(let examples)? = vectors["rfc6455_5.7_frames"] {
            for example in examples {
                if case .string(let hex)? = example["bytes_hex"], let bytes = SeedFiles.hex(hex) {
                    frames.append(bytes)
                }
            }
        }
        var seeds: [[UInt8]] = []
        for frame in frames {
            seeds.append([frame[1] & 0x80 != 0 ? 0 : 1] + frame)  // masked → server role
        }
        seeds.append([1] + frames.joined())
        let mask = SeededIdentifierSource(seed: 3)
        for message in SeedFiles.sipMessages().prefix(24) {
            let key = UInt32(truncatingIfNeeded: mask.nextUInt64())
            seeds.append([0] + WebSocketFrame(opcode: .text, maskingKey: key, payload: message).encoded())
            let half = message.count / 2
            seeds.append(
                [1] + WebSocketFrame(fin: false, opcode: .text, payload: Array(message[..<half])).encoded()
                    + WebSocketFrame(opcode: .ping, payload: [1, 2]).encoded()
                    + WebSocketFrame(opcode: .continuation, payload: Array(message[half...])).encoded()
                    + WebSocketFrame(opcode: .close, payload: [0x03, 0xE8] + Array("bye".utf8)).encoded())
        }
        return seeds
    }
}

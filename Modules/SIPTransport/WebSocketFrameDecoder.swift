/// Incremental RFC 6455 §5.2 frame decoder: bytes in any chunking, frames out.
///
/// Shaped like swift-nio's `WebSocketFrameDecoder`: a value type with a buffer and a
/// `mutating` step that returns a frame, `nil` for "need more data", or throws the
/// ``WebSocketProtocolError`` (close code + reason) on which the connection must be failed
/// (§7.1.7). It never traps on bad input.
public struct WebSocketFrameDecoder: Sendable {
    /// Frames larger than this fail with 1009 (§7.4.1) before their payload is buffered.
    public var maxFrameSize: Int
    /// Server side: every frame must be masked (§5.1). Client side: no frame may be.
    public var expectMasked: Bool

    private var buffer: [UInt8] = []
    private var readIndex = 0

    public init(maxFrameSize: Int = 1 << 20, expectMasked: Bool = false) {
        self.maxFrameSize = maxFrameSize
        self.expectMasked = expectMasked
    }

    /// Bytes received but not yet consumed as frames.
    public var bufferedByteCount: Int { buffer.count - readIndex }

    public mutating func append(_ bytes: some Sequence<UInt8>) {
        if readIndex > 0 && readIndex >= buffer.count / 2 {
            buffer.removeSubrange(0..<readIndex)
            readIndex = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete frame, or nil when more bytes are needed.
    public mutating func next() throws(WebSocketProtocolError) -> WebSocketFrame? {
        let available = buffer.count - readIndex
        guard available >= 2 else { return nil }
        let b0 = buffer[readIndex]
        let b1 = buffer[readIndex + 1]
        let fin = b0 & 0x80 != 0
        if b0 & 0x70 != 0 {
            throw WebSocketProtocolError(.protocolError, "reserved bits set without a negotiated extension (§5.2)")
        }
        guard let opcode = WebSocketFrame.Opcode(rawValue: b0 & 0x0F) else {
            throw WebSocketProtocolError(.protocolError, "unknown opcode 0x\(String(b0 & 0x0F, radix: 16)) (§5.2)")
        }
        let masked = b1 & 0x80 != 0
        if masked != expectMasked {
            throw WebSocketProtocolError(
                .protocolError, masked ? "server frame is masked (§5.1)" : "client frame is not masked (§5.1)")
        }
        let length7 = Int(b1 & 0x7F)
        if opcode.isControl {
            if !fin { throw WebSocketProtocolError(.protocolError, "fragmented control frame (§5.5)") }
            if length7 > 125 {
                throw WebSocketProtocolError(.protocolError, "control frame payload over 125 bytes (§5.5)")
            }
        }
        var headerLength = 2
        var payloadLength: UInt64
        switch length7 {
        case 126:
            guard available >= 4 else { return nil }
            payloadLength = UInt64(buffer[readIndex + 2]) << 8 | UInt64(buffer[readIndex + 3])
            headerLength = 4
        case 127:
            guard available >= 10 else { return nil }
            payloadLength = 0
            for i in 0..<8 { payloadLength = payloadLength << 8 | UInt64(buffer[readIndex + 2 + i]) }
            if payloadLength >> 63 != 0 {
                throw WebSocketProtocolError(.protocolError, "64-bit length with the most significant bit set (§5.2)")
            }
            headerLength = 10
        default:
            payloadLength = UInt64(length7)
        }
        if payloadLength > UInt64(maxFrameSize) {
            throw WebSocketProtocolError(
                .messageTooBig, "frame of \(payloadLength) bytes exceeds the \(maxFrameSize)-byte limit")
        }
        var key: UInt32?
        if masked {
            guard available >= headerLength + 4 else { return nil }
            var k: UInt32 = 0
            for i in 0..<4 { k = k << 8 | UInt32(buffer[readIndex + headerLength + i]) }
            key = k
            headerLength += 4
        }
        let total = headerLength + Int(payloadLength)
        guard available >= total else { return nil }
        let start = readIndex + headerLength
        var payload = Array(buffer[start..<(start + Int(payloadLength))])
        if let key {
            let k = WebSocketFrame.keyBytes(key)
            for i in payload.indices { payload[i] ^= k[i & 3] }
        }
        readIndex += total
        if readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            readIndex = 0
        }
        return WebSocketFrame(fin: fin, opcode: opcode, maskingKey: key, payload: payload)
    }
}

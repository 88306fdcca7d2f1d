import SIPCore

/// The RFC 6455 data-transfer and closing state machine of one WebSocket connection, after
/// the opening handshake: reassembles fragmented messages (§5.4), answers pings (§5.5.2),
/// runs the close handshake (§7) and enforces the maximum message size.
///
/// Pure value type: bytes in, ``Output`` actions out; the owning actor writes `.send` bytes
/// and closes the socket on `.closed`/`.failed`. For RFC 7118 each delivered message is one
/// SIP message (text or binary).
public struct WebSocketSession: Sendable {
    public enum Role: Sendable { case client, server }

    /// RFC 6455 §7 connection states.
    private enum State: Sendable {
        /// §4: handshake done, data frames flow both ways.
        case open
        /// §7.1.2: we sent Close and wait for the peer's Close.
        case closeSent
        /// §7.1.4: the close handshake (or a failure) finished; nothing more is accepted.
        case closed
    }

    /// What the owner must do after feeding bytes.
    public enum Output: Sendable, Hashable {
        /// A complete message (all fragments joined); RFC 7118: one SIP message.
        case message([UInt8], binary: Bool)
        /// Bytes to write to the peer (pong, Close reply, failure Close).
        case send([UInt8])
        /// A Pong arrived (keep-alive answer, §5.5.3).
        case pong([UInt8])
        /// The close handshake completed (§7.1.4); close the TCP connection.
        case closed(code: WebSocketCloseCode, reason: String)
        /// The connection failed (§7.1.7) — a Close with the code was queued as `.send`
        /// before this output; close the TCP connection.
        case failed(WebSocketProtocolError)
    }

    public let role: Role
    /// Messages larger than this (after reassembly) fail with 1009.
    public let maxMessageSize: Int
    private let maskSource: (any IdentifierSource)?
    private var decoder: WebSocketFrameDecoder
    private var state = State.open
    private var fragmentOpcode: WebSocketFrame.Opcode?
    private var fragments: [UInt8] = []

    /// - Parameters:
    ///   - role: client frames are masked, server frames are not (RFC 6455 §5.1).
    ///   - maxMessageSize: the largest message, fragments joined, accepted before closing with 1009.
    ///   - maskSource: client role: source of the §5.3 masking keys (must be unpredictable:
    ///     `SystemIdentifierSource` in production).
    public init(role: Role, maxMessageSize: Int = 1 << 20, maskSource: (any IdentifierSource)? = nil) {
        self.role = role
        self.maxMessageSize = maxMessageSize
        self.maskSource = role == .client ? (maskSource ?? SystemIdentifierSource()) : nil
        decoder = WebSocketFrameDecoder(maxFrameSize: maxMessageSize, expectMasked: role == .server)
    }

    /// True once the close handshake finished or the connection failed.
    public var isClosed: Bool {
        if case .closed = state { return true }
        return false
    }

    // MARK: Sending

    /// One SIP message as one unfragmented frame (RFC 7118 §5.1), masked in the client role.
    public func frame(message: [UInt8], binary: Bool = false) -> [UInt8] {
        WebSocketFrame(opcode: binary ? .binary : .text, maskingKey: nextMask(), payload: message).encoded()
    }

    /// A Ping (§5.5.2), e.g. as keep-alive.
    public func ping(_ payload: [UInt8] = []) -> [UInt8] {
        WebSocketFrame(opcode: .ping, maskingKey: nextMask(), payload: Array(payload.prefix(125))).encoded()
    }

    /// Starts the close handshake (§7.1.2); returns the Close frame to send, or nil if closing already.
    public mutating func close(code: WebSocketCloseCode = .normal, reason: String = "") -> [UInt8]? {
        guard case .open = state else { return nil }
        state = .closeSent
        return closeFrame(code: code, reason: reason)
    }

    // MARK: Receiving

    /// Feeds received bytes; returns the actions in order.
    public mutating func receive(_ bytes: some Sequence<UInt8>) -> [Output] {
        if case .closed = state { return [] }
        decoder.append(bytes)
        var outputs: [Output] = []
        while true {
            if case .closed = state { break }
            let frame: WebSocketFrame
            do {
                guard let next = try decoder.next() else { break }
                frame = next
            } catch {
                outputs += fail(error)
                break
            }
            outputs += handle(frame)
        }
        return outputs
    }

    private mutating func handle(_ frame: WebSocketFrame) -> [Output] {
        switch frame.opcode {
        case .ping:
            if case .open = state {
                return [.send(WebSocketFrame(opcode: .pong, maskingKey: nextMask(), payload: frame.payload).encoded())]
            }
            return []
        case .pong:
            return [.pong(frame.payload)]
        case .close:
            return handleClose(frame.payload)
        case .text, .binary:
            if case .closeSent = state { return [] }
            if fragmentOpcode != nil {
                return fail(WebSocketProtocolError(.protocolError, "new data frame inside a fragmented message (§5.4)"))
            }
            if frame.fin { return deliver(frame.payload, opcode: frame.opcode) }
            fragmentOpcode = frame.opcode
            fragments = frame.payload
            return []
        case .continuation:
            guard let opcode = fragmentOpcode else {
                return fail(
                    WebSocketProtocolError(.protocolError, "continuation frame without a message to continue (§5.4)"))
            }
            if fragments.count + frame.payload.count > maxMessageSize {
                return fail(WebSocketProtocolError(.messageTooBig, "message exceeds the \(maxMessageSize)-byte limit"))
            }
            fragments += frame.payload
            guard frame.fin else { return [] }
            let message = fragments
            fragments = []
            fragmentOpcode = nil
            if case .closeSent = state { return [] }
            return deliver(message, opcode: opcode)
        }
    }

    private mutating func deliver(_ payload: [UInt8], opcode: WebSocketFrame.Opcode) -> [Output] {
        if payload.count > maxMessageSize {
            return fail(WebSocketProtocolError(.messageTooBig, "message exceeds the \(maxMessageSize)-byte limit"))
        }
        if opcode == .text && String(validating: payload, as: UTF8.self) == nil {
            return fail(WebSocketProtocolError(.invalidPayload, "text message is not valid UTF-8 (§8.1)"))
        }
        return [.message(payload, binary: opcode == .binary)]
    }

    /// §5.5.1 / §7.1.5: a Close carries nothing or a 2-byte code plus a UTF-8 reason.
    private mutating func handleClose(_ payload: [UInt8]) -> [Output] {
        var code = WebSocketCloseCode.noStatus
        var reason = ""
        if payload.count == 1 {
            return fail(WebSocketProtocolError(.protocolError, "Close frame with a 1-byte payload (§5.5.1)"))
        }
        if payload.count >= 2 {
            code = WebSocketCloseCode(rawValue: UInt16(payload[0]) << 8 | UInt16(payload[1]))
            guard code.isValidOnWire else {
                return fail(WebSocketProtocolError(.protocolError, "invalid close code \(code.rawValue) (§7.4)"))
            }
            guard let text = String(validating: payload[2...], as: UTF8.self) else {
                return fail(WebSocketProtocolError(.invalidPayload, "close reason is not valid UTF-8 (§5.5.1)"))
            }
            reason = text
        }
        switch state {
        case .open:
            // §5.5.1: answer with a Close echoing the status code, then the server closes TCP.
            state = .closed
            let echo = code == .noStatus ? closeFrame(code: nil, reason: "") : closeFrame(code: code, reason: "")
            return [.send(echo), .closed(code: code, reason: reason)]
        case .closeSent:
            state = .closed
            return [.closed(code: code, reason: reason)]
        case .closed:
            return []
        }
    }

    /// §7.1.7 "Fail the WebSocket Connection": send a Close with the code (if still allowed), then close.
    private mutating func fail(_ error: WebSocketProtocolError) -> [Output] {
        var outputs: [Output] = []
        if case .open = state {
            outputs.append(.send(closeFrame(code: error.closeCode, reason: "")))
        }
        state = .closed
        outputs.append(.failed(error))
        return outputs
    }

    private func closeFrame(code: WebSocketCloseCode?, reason: String) -> [UInt8] {
        var payload: [UInt8] = []
        if let code {
            payload = [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)] + Array(reason.utf8.prefix(123))
        }
        return WebSocketFrame(opcode: .close, maskingKey: nextMask(), payload: payload).encoded()
    }

    private func nextMask() -> UInt32? {
        maskSource.map { UInt32(truncatingIfNeeded: $0.nextUInt64() >> 32) }
    }
}

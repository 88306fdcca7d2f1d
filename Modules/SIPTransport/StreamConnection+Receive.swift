import SIPCore

extension StreamConnection {
    /// Everything the socket reports goes through here, in order.
    func process(_ event: ReadEvent) async {
        guard phase != .closed else { return }
        switch event {
        case .data(let bytes):
            var plain = bytes
            if let tls {
                tls.feed(bytes)
                if phase == .tlsHandshake {
                    do { try await advanceTLSHandshake() } catch {
                        fail(error)
                        return
                    }
                    if phase == .tlsHandshake || phase == .closed { return }
                }
                do { plain = try tls.readPlaintext() } catch {
                    fail(error)
                    return
                }
                writeQueue += tls.drainOutbound()
            }
            if !plain.isEmpty { await handlePlaintext(plain) }
            if let tls, tls.peerClosed, phase == .open || phase == .closing {
                // RFC 8446 §6.1: answer with our close_notify before closing (the machine
                // knows whether ours went out already).
                if phase == .open {
                    closeOutcome = peerClosedError("TLS close_notify")
                    beginClosing()
                }
                await performClose(closer.peerClosedTransport(closeNotify: true))
            } else if let tls, tls.peerClosed, phase != .closed {
                fail(peerClosedError("TLS close_notify"))
            }
        case .datagram:
            return
        case .eof:
            if phase == .closing {
                await performClose(closer.peerClosedTransport(closeNotify: false))
            } else {
                fail(peerClosedError("connection closed by the peer"))
            }
        case .error(let code):
            fail(
                TransportError(
                    .peerClosed, transport: transport, peer: remote.description,
                    "read failed: \(SocketErrno(code: code))"))
        }
    }

    private func peerClosedError(_ what: String) -> TransportError {
        var detail = what
        let pending = webSocket == nil ? framer.bufferedByteCount : 0
        if pending > 0 { detail += " in the middle of a message (\(pending) bytes of it received)" }
        if transport.isWebSocket && phase == .open { detail += " without a WebSocket Close (1006)" }
        return TransportError(.peerClosed, transport: transport, peer: remote.description, detail)
    }

    private func handlePlaintext(_ bytes: [UInt8]) async {
        switch phase {
        case .webSocketHandshake:
            guard var request = handshake else { return }
            let outcome = request.receive(bytes)
            handshake = request
            switch outcome {
            case .needMoreData:
                return
            case .refused(let error):
                fail(error.with(transport: transport, peer: remote.description))
            case .accepted(_, let leftover):
                handshake = nil
                webSocket = WebSocketSession(role: .client, maxMessageSize: options.maxMessageSize, maskSource: ids)
                opened()
                if !leftover.isEmpty { await handlePlaintext(leftover) }
            }
        case .open:
            if webSocket != nil {
                await receiveWebSocket(bytes)
            } else {
                await receiveStream(bytes)
            }
        case .closing:
            // Only the peer's Close matters now (§7.1.2); a closed TLS stream expects nothing.
            if webSocket != nil { await receiveWebSocket(bytes) }
        case .tlsHandshake, .closed:
            return
        }
    }

    private func receiveWebSocket(_ bytes: [UInt8]) async {
        guard var session = webSocket else { return }
        let outputs = session.receive(bytes)
        webSocket = session
        for output in outputs {
            switch output {
            case .message(let payload, let binary):
                deliverWebSocketMessage(payload, binary: binary)
            case .send(let frame):
                try? writeWire(frame)
            case .pong:
                await keepAliveEvent { $0.pongReceived() }
            case .closed(let code, let reason):
                try? await flush()  // our echo of a Close the peer started (§5.5.1)
                if closingLocally {
                    closeOutcome = TransportError(
                        .closed, transport: transport, peer: remote.description, "WebSocket close handshake completed")
                } else {
                    closeOutcome = TransportError(
                        .peerClosed, transport: transport, peer: remote.description,
                        "WebSocket Close \(code)\(reason.isEmpty ? "" : " \"\(reason)\"")")
                    beginClosing()
                }
                await performClose(closer.peerWebSocketClosed())
                return
            case .failed(let error):
                try? await flush()
                let code: TransportError.Code =
                    error.closeCode == .messageTooBig ? .messageTooLarge : .protocolViolation
                fail(TransportError(code, transport: transport, peer: remote.description, error.description))
                return
            }
        }
        try? await flush()
    }

    private func receiveStream(_ bytes: [UInt8]) async {
        framer.append(bytes)
        while phase == .open {
            let output: SIPStreamFramer.Output?
            do { output = try framer.next() } catch {
                // What did not frame still goes to the trace: an answer our parser refuses (a
                // server echoing a torture message's bad header) is still an answer.
                options.trace?.record(
                    .received, transport: transport, local: local, remote: remote, message: framer.bufferedBytes)
                // The stream cannot be re-synchronised after a framing error (RFC 3261 §18.3).
                fail(
                    TransportError(
                        Self.code(for: error), transport: transport, peer: remote.description, "SIP framing: \(error)"))
                return
            }
            guard let output else { break }
            switch output {
            case .message(let message):
                deliver(message, bytes: message.serialized(), binary: false)
            case .keepAlivePing:
                // RFC 5626 §4.4.1: answer a double-CRLF ping with a single CRLF pong.
                try? writeWire([13, 10])
            case .keepAlivePong:
                // The framer is in the client keep-alive role: every lone CRLF is a pong.
                await keepAliveEvent { $0.pongReceived() }
            }
        }
        try? await flush()
    }

    /// One WebSocket message is one SIP message (RFC 7118 §5.1): parsed on its own; an
    /// unparseable one is logged and dropped, the connection stays (its framing is intact).
    func deliverWebSocketMessage(_ payload: [UInt8], binary: Bool) {
        guard !payload.isEmpty else { return }
        do {
            let message = try SIPMessage(parsing: payload, limits: options.parserLimits)
            deliver(message, bytes: payload, binary: binary)
        } catch {
            options.trace?.record(.received, transport: transport, local: local, remote: remote, message: payload)
            options.log(
                .warning,
                "\(transport) \(remote): dropped an unparseable SIP message (\(payload.count) bytes): \(error)")
        }
    }

    static func code(for error: SIPParseError) -> TransportError.Code {
        switch error.code {
        case .bodyTooLarge, .headerSectionTooLarge, .lineTooLong, .tooManyHeaders: .messageTooLarge
        default: .protocolViolation
        }
    }

    private func deliver(_ message: SIPMessage, bytes: [UInt8], binary: Bool) {
        options.trace?.record(.received, transport: transport, local: local, remote: remote, message: bytes)
        eventSink.yield(
            .message(
                ReceivedMessage(
                    message: message, bytes: bytes, transport: transport, local: local, remote: remote, binary: binary))
        )
        if keepAlive != nil {
            Task { await self.keepAliveEvent { $0.pongReceived() } }
        }
    }
}

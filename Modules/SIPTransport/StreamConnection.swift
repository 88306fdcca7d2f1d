import SIPCore
import Synchronization

/// One TCP, TLS, WS or WSS connection: an actor that owns the socket, the OpenSSL session,
/// the WebSocket codec, the SIP stream framer and the keep-alive machine, and reports
/// received messages and its end as ``events``.
///
/// Bad input (garbage, oversize frames or messages, a half-sent message then close) ends this
/// connection with a logged reason and a `.closed` event; it never traps.
public actor StreamConnection {
    /// Connection phases, in order.
    enum Phase {
        /// RFC 5246/8446 handshake over the TCP connection (TLS, WSS).
        case tlsHandshake
        /// RFC 6455 §4.1 opening handshake (WS, WSS).
        case webSocketHandshake
        /// Messages flow; keep-alive runs.
        case open
        /// The closing handshake runs (``ConnectionCloseMachine``): nothing is sent but the
        /// closing frames, reads go on until the peer's Close and FIN.
        case closing
        /// Finished; `.closed` was reported.
        case closed
    }

    public nonisolated let transport: TransportKind
    public nonisolated let remote: SocketAddress
    public nonisolated let local: SocketAddress?
    /// The host name used for SNI, certificate and `Host:` checks.
    public nonisolated let host: String
    /// Received messages, then one `.closed` as the last event (unless ``deliverEvents(to:)``
    /// took them).
    public nonisolated var events: AsyncStream<ConnectionEvent> { eventSink.stream }
    /// TLS and WSS: the server certificate's notAfter once the handshake is done (seconds
    /// since the epoch), readable without a hop onto the actor.
    public nonisolated var serverCertificateNotAfter: Int? { certificateNotAfter.withLock { $0 } }
    let certificateNotAfter = Mutex<Int?>(nil)

    let eventSink = EventOutlet<ConnectionEvent>()
    /// What the socket read, handled in order on this actor by a task that runs only while
    /// there is something to handle (no pump parked per connection).
    let reads = SerialInbox<ReadEvent>()
    let channel: SocketChannel
    let options: ConnectionOptions
    let clock: any Clock<Duration>
    let ids: any IdentifierSource
    var phase = Phase.open
    var tls: TLSSession?
    var handshake: WebSocketHandshake?
    var webSocket: WebSocketSession?
    var framer: SIPStreamFramer
    var keepAlive: KeepAliveMachine?
    var keepAliveTimer: Task<Void, Never>?
    /// The keep-alive timer's key on ``ConnectionOptions/timers`` (when set), and the stamp of
    /// its latest start (a fire already on its way when it was re-armed or stopped is ignored).
    let keepAliveKey: LineTimers<ContinuousClock>.Key?
    var keepAliveStamp: UInt64 = 0
    var opener: CheckedContinuation<TransportError?, Never>?
    var writeQueue: [UInt8] = []
    var writing = false
    /// Closing steps waiting for the write in progress to put their bytes on the wire.
    var flushWaiters: [OnceResumer] = []
    /// True once ``close()`` started: the peer's Close is then the expected answer.
    var closingLocally = false
    /// The orderly close, both directions (RFC 6455 §7.1, TLS close_notify, TCP).
    var closer: ConnectionCloseMachine
    /// How the connection is reported once the closing handshake has closed the socket.
    var closeOutcome: TransportError?
    var closeTimer: Task<Void, Never>?
    /// ``close()`` callers waiting for the socket to be closed.
    var closeWaiters: [CheckedContinuation<Void, Never>] = []
    /// Why the connection ended while opening, when no opener was waiting yet.
    var openFailure: TransportError?
    /// True once every handshake finished (even if the connection ended right after).
    var didOpen = false

    /// Resolves `host`, connects (trying each address in turn), runs the TLS and WebSocket
    /// handshakes and starts keep-alive. Throws the first fatal error, or the last one.
    public static func open(
        host: String, port: UInt16? = nil, transport: TransportKind, options: ConnectionOptions = ConnectionOptions(),
        clock: any Clock<Duration> = ContinuousClock(), ids: any IdentifierSource = SystemIdentifierSource()
    ) async throws(TransportError) -> StreamConnection {
        guard transport != .udp else {
            throw TransportError(
                .invalidArgument, transport: transport, peer: host, "UDP has no connections: use UDPTransport")
        }
        // No port: RFC 3263 SRV first (TCP/TLS), then A/AAAA on the default port.
        let addresses = try await Resolver.resolve(server: host, port: port, transport: transport)
        var lastError = TransportError(.resolutionFailed, transport: transport, peer: host, "no address")
        for address in addresses {
            do throws(TransportError) {
                let channel = try await Socket.connectStream(
                    to: address, timeout: options.connectTimeout, transport: transport)
                let connection = StreamConnection(
                    channel: channel, host: host, remote: address, transport: transport, options: options, clock: clock,
                    ids: ids)
                if let error = await connection.runHandshakes() { throw error }
                return connection
            } catch {
                lastError = error
                switch error.code {
                case .certificateVerificationFailed, .subprotocolRefused, .webSocketHandshakeFailed, .invalidArgument:
                    throw error  // The server answered: another address of it will answer the same.
                default:
                    continue
                }
            }
        }
        throw lastError
    }

    init(
        channel: SocketChannel, host: String, remote: SocketAddress, transport: TransportKind,
        options: ConnectionOptions, clock: any Clock<Duration>, ids: any IdentifierSource
    ) {
        self.channel = channel
        self.host = host
        self.remote = remote
        self.local = channel.localAddress
        self.transport = transport
        self.options = options
        self.clock = clock
        self.ids = ids
        framer = SIPStreamFramer(limits: options.parserLimits)
        keepAliveKey = options.timers.map { LineTimers<ContinuousClock>.Key(owner: $0.newOwner(), slot: 0) }
        closer = ConnectionCloseMachine(
            webSocket: transport.isWebSocket, tls: transport.isSecure, bound: options.closeTimeout)
    }

    deinit {
        channel.close()
        keepAliveTimer?.cancel()
        if let keepAliveKey { options.timers?.cancel(keepAliveKey) }
        closeTimer?.cancel()
        eventSink.finish()
        reads.discard()
    }

    /// True until the connection ends.
    public var isOpen: Bool { phase == .open }

    /// Sends one SIP message: as is on TCP/TLS, as one WebSocket message on WS/WSS (text if
    /// it is UTF-8, else binary — RFC 7118 §5.1).
    public func send(_ message: [UInt8]) async throws(TransportError) {
        guard phase == .open else {
            throw TransportError(
                .notConnected, transport: transport, peer: remote.description, "connection is not open")
        }
        options.trace?.record(.sent, transport: transport, local: local, remote: remote, message: message)
        if let webSocket {
            let binary = String(validating: message, as: UTF8.self) == nil
            try writeWire(webSocket.frame(message: message, binary: binary))
        } else {
            try writeWire(message)
        }
        try await flush()
    }

    /// Sends one parsed/built SIP message (its `serialized()` form).
    public func send(_ message: SIPMessage) async throws(TransportError) {
        try await send(message.serialized())
    }

    /// Closes gracefully and returns once the socket is closed: WebSocket Close 1000 and the
    /// peer's Close (RFC 6455 §7.1.2), TLS close_notify, then the server's FIN and ours
    /// (`ConnectionCloseMachine`), waiting at most ``ConnectionOptions/closeTimeout``.
    public func close() async {
        switch phase {
        case .open:
            closingLocally = true
            closeOutcome = TransportError(.closed, transport: transport, peer: remote.description, "closed locally")
            beginClosing()
            await performClose(closer.closeLocally())
        case .closing:
            closingLocally = true
        case .tlsHandshake, .webSocketHandshake, .closed:
            fail(TransportError(.closed, transport: transport, peer: remote.description, "closed locally"))
            return
        }
        if phase == .closed { return }
        await withCheckedContinuation { closeWaiters.append($0) }
    }

    // MARK: Opening

    private func runHandshakes() async -> TransportError? {
        let reads = reads
        reads.start { [weak self] event in await self?.process(event) }
        channel.startReading { reads.yield($0) }
        do {
            if transport.isSecure {
                if !options.tls.verifyPeer {
                    options.log(
                        .warning, "TLS certificate verification is DISABLED (insecure) for \(transport) \(remote)")
                }
                let session = try TLSSession(
                    options: options.tls, host: host, transport: transport, peer: remote.description)
                tls = session
                phase = .tlsHandshake
                try await advanceTLSHandshake()
            } else if transport.isWebSocket {
                try await startWebSocketHandshake()
            } else {
                opened()
            }
        } catch {
            fail(error)
            return error
        }
        if !didOpen && phase == .closed {
            return openFailure
                ?? TransportError(
                    .peerClosed, transport: transport, peer: remote.description, "closed during the handshake")
        }
        if !didOpen {
            let timeout = options.handshakeTimeout
            let timer = Task { [weak self] in
                try? await Task.sleep(for: timeout)
                guard !Task.isCancelled else { return }
                await self?.handshakeTimedOut()
            }
            let bound = min(options.tlsAnswerTimeout, timeout)
            let answerTimer: Task<Void, Never>? = tls == nil ? nil : Task { [weak self, clock] in
                try? await clock.sleep(for: bound)
                guard !Task.isCancelled else { return }
                await self?.tlsAnswerTimedOut(bound)
            }
            let result = await withCheckedContinuation { opener = $0 }
            timer.cancel()
            answerTimer?.cancel()
            if let result { return result }
        }
        // Opened: bytes that followed the handshake may already have ended the connection;
        // that is then reported as the `.closed` event, not as an opening failure.
        startKeepAlive()
        return nil
    }

    private func handshakeTimedOut() {
        guard phase == .tlsHandshake || phase == .webSocketHandshake else { return }
        fail(
            TransportError(
                .connectTimeout, transport: transport, peer: remote.description,
                "handshake not finished within \(options.handshakeTimeout)"))
    }

    /// The server sent not one byte after our ClientHello: not a TLS port, most likely.
    private func tlsAnswerTimedOut(_ bound: Duration) {
        guard phase == .tlsHandshake, let tls, !tls.receivedAny else { return }
        fail(TransportError(.tlsHandshakeFailed, transport: transport, peer: remote.description, TLSSession.silentDetail(bound)))
    }

    func advanceTLSHandshake() async throws(TransportError) {
        guard let tls else { return }
        switch tls.handshake() {
        case .wantMore:
            writeQueue += tls.drainOutbound()
            try await flush()
        case .failed(let error):
            throw error
        case .done:
            writeQueue += tls.drainOutbound()
            let notAfter = tls.peerCertificateNotAfter
            certificateNotAfter.withLock { $0 = notAfter }
            options.log(.debug, "\(transport) \(remote): \(tls.version) established")
            if transport.isWebSocket {
                try await startWebSocketHandshake()
            } else {
                opened()
            }
            try await flush()
        }
    }

    private func startWebSocketHandshake() async throws(TransportError) {
        let defaultPort = transport == .wss ? 443 : 80
        let hostHeader = remote.port == defaultPort ? uriHost(host) : "\(uriHost(host)):\(remote.port)"
        let request = WebSocketHandshake(
            host: hostHeader, path: options.webSocketPath, origin: options.webSocketOrigin, nonce: ids)
        handshake = request
        phase = .webSocketHandshake
        try writeWire(request.request())
        try await flush()
    }

    private func uriHost(_ name: String) -> String {
        SocketAddress(ip: name, port: 0)?.uriHost ?? name
    }

    func opened() {
        phase = .open
        didOpen = true
        if let opener {
            self.opener = nil
            opener.resume(returning: nil)
        }
    }
}

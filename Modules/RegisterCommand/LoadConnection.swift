import Glibc
import SIPCore
import SIPDialog
import SIPTransport

/// One line's own connection in connection-oriented load (``StreamLoadLoop``): a non-blocking
/// TCP connect, then the TLS handshake over memory BIOs (TLS, WSS), then the RFC 6455 upgrade
/// with the RFC 7118 `sip` subprotocol (WS, WSS), then SIP messages — framed by
/// ``SIPStreamFramer`` on a byte stream (RFC 3261 §18.3) or one per WebSocket message.
///
/// The same pure pieces the flows use (``WebSocketHandshake``, ``WebSocketSession``,
/// ``SIPStreamFramer``, ``TLSSession``); only the socket and the stages are here. Owned by the
/// loop's thread.
final class LoadConnection {
    enum Stage: Equatable {
        case connecting, securing, upgrading, open, closed
    }

    /// What the loop must act on after an input.
    enum Event {
        /// Ready for SIP; the line's binding on this connection.
        case ready(LocalBinding)
        case message(SIPMessage)
        /// A keep-alive answer: a CRLF (RFC 5626 §4.4.1) or a WebSocket Pong (RFC 6455 §5.5.3).
        case pong
        /// The connection is gone or unusable (the descriptor is closed already).
        case failed(LoadFailureCause, String)
    }

    let line: Int
    let transport: TransportKind
    private(set) var fd: Int32
    private(set) var stage: Stage
    private var tls: TLSSession?
    private var upgrade: WebSocketHandshake?
    private var webSocket: WebSocketSession?
    private var framer: SIPStreamFramer
    private var outbox: [UInt8] = []
    private var outboxStart = 0
    private let ids: any IdentifierSource
    private let maxMessageSize: Int
    /// WebSocket flows: a random `.invalid` host per connection (RFC 7118 §5.2).
    private let viaHost: String
    private let hostHeader: String
    private let path: String

    /// Stage times on the loop's clock.
    let opened: Duration
    private(set) var connectedAt: Duration?
    private(set) var securedAt: Duration?
    private(set) var readyAt: Duration?

    struct Target {
        let address: SocketAddress
        let transport: TransportKind
        /// The `Host` of the upgrade request and the TLS server name.
        let host: String
        let port: UInt16
        let path: String
        let tls: TLSClientContext?
    }

    init(line: Int, target: Target, ids: any IdentifierSource, now: Duration) throws(TransportError) {
        self.line = line
        transport = target.transport
        self.ids = ids
        maxMessageSize = 262_144
        framer = SIPStreamFramer(limits: SIPParserLimits(maxBodySize: 65_535))
        viaHost = ids.token(length: 12).lowercased() + ".invalid"
        let defaultPort: UInt16 = target.transport == .wss ? 443 : 80
        let bare = SocketAddress(ip: target.host, port: 0)?.uriHost ?? target.host
        hostHeader = target.port == defaultPort ? bare : "\(bare):\(target.port)"
        path = target.path
        opened = now
        if let context = target.tls {
            tls = try TLSSession(context: context, host: target.host, transport: target.transport,
                                 peer: target.address.description)
        }
        // Even a connect that finished at once is taken up by the first EPOLLOUT (`writable`),
        // so its events reach the loop like every other connection's.
        fd = try StreamSocket.open(to: target.address).fd
        stage = .connecting
    }

    deinit { if fd >= 0 { Glibc.close(fd) } }

    /// The descriptor wants `EPOLLOUT`: connecting, or bytes wait in the outbox.
    var wantsWrite: Bool { stage == .connecting || outboxStart < outbox.count }

    /// Bytes accepted but not yet written.
    var pendingBytes: Int { outbox.count - outboxStart }

    // MARK: Inputs

    /// The socket is writable: a pending connect ended, or the outbox can drain.
    func writable(now: Duration) -> [Event] {
        if stage == .connecting {
            if let error = StreamSocket.connectError(fd) { return fail(.connect, error) }
            return connectFinished(now: now)
        }
        return flush()
    }

    /// The socket is readable: read until `EAGAIN`, EOF or an error (decision D29).
    func readable(buffer: UnsafeMutableRawBufferPointer, now: Duration) -> [Event] {
        var events: [Event] = []
        while stage != .closed {
            switch StreamSocket.read(fd, into: buffer) {
            case .bytes(let n):
                events += received(Array(UnsafeRawBufferPointer(rebasing: buffer[0..<n])), now: now)
            case .wouldBlock:
                return events
            case .endOfFile:
                return events + fail(.closed, "the server closed the connection")
            case .failed(let reason):
                return events + fail(.closed, reason)
            }
        }
        return events
    }

    // MARK: Sending

    /// One SIP message (a WebSocket message on WS/WSS, RFC 7118 §5.1).
    func send(_ message: [UInt8]) -> [Event] {
        guard stage == .open else { return [] }
        if let webSocket { return sendPlain(webSocket.frame(message: message)) }
        return sendPlain(message)
    }

    /// A keep-alive ping: `CRLFCRLF` on TCP/TLS (RFC 5626 §4.4.1), a Ping frame on WS/WSS
    /// (RFC 6455 §5.5.2; RFC 7118 leaves WebSocket keep-alive to the WebSocket layer).
    func ping() -> [Event] {
        guard stage == .open else { return [] }
        if let webSocket { return sendPlain(webSocket.ping()) }
        return sendPlain([13, 10, 13, 10])
    }

    /// Closes now: a WebSocket Close (§7.1.2) and a TLS close_notify go out first when the
    /// socket takes them at once; the loop does not wait for the peer's answers.
    func close() {
        guard stage != .closed else { return }
        if stage == .open {
            if var session = webSocket, let frame = session.close() {
                webSocket = session
                _ = sendPlain(frame)
            }
            if let tls {
                tls.shutdown()
                outbox += tls.drainOutbound()
                _ = flush()
            }
        }
        closeDescriptor()
    }

    // MARK: Stages

    private func connectFinished(now: Duration) -> [Event] {
        connectedAt = now
        if let tls {
            stage = .securing
            return step(tls, now: now)
        }
        return secured(now: now)
    }

    private func secured(now: Duration) -> [Event] {
        securedAt = now
        guard transport.isWebSocket else { return open(now: now) }
        stage = .upgrading
        let request = WebSocketHandshake(host: hostHeader, path: path, nonce: ids)
        upgrade = request
        return writePlain(request.request())
    }

    private func open(now: Duration) -> [Event] {
        stage = .open
        readyAt = now
        let binding: LocalBinding
        if transport.isWebSocket {
            binding = LocalBinding(transport: transport.sipTransportProtocol, host: viaHost, port: nil)
        } else {
            let local = StreamSocket.localAddress(fd)
            binding = LocalBinding(transport: transport.sipTransportProtocol, host: local?.uriHost ?? "invalid",
                                   port: local?.port)
        }
        return [.ready(binding)]
    }

    private func step(_ tls: TLSSession, now: Duration) -> [Event] {
        switch tls.handshake() {
        case .done:
            outbox += tls.drainOutbound()
            let flushed = flush()
            if stage == .closed { return flushed }
            return flushed + secured(now: now)
        case .wantMore:
            outbox += tls.drainOutbound()
            return flush()
        case .failed(let error):
            return fail(.tls, error.detail)
        }
    }

    private func received(_ bytes: [UInt8], now: Duration) -> [Event] {
        guard let tls else { return plaintext(bytes, now: now) }
        tls.feed(bytes)
        var events: [Event] = []
        if stage == .securing {
            events += step(tls, now: now)
            if stage == .securing || stage == .closed { return events }
        }
        let clear: [UInt8]
        do {
            clear = try tls.readPlaintext()
        } catch {
            return events + fail(.tls, error.detail)
        }
        outbox += tls.drainOutbound()
        events += flush()
        if !clear.isEmpty { events += plaintext(clear, now: now) }
        if tls.peerClosed && stage != .closed { events += fail(.closed, "the server closed the TLS session") }
        return events
    }

    private func plaintext(_ bytes: [UInt8], now: Duration) -> [Event] {
        switch stage {
        case .upgrading:
            guard var request = upgrade else { return [] }
            let outcome = request.receive(bytes)
            upgrade = request
            switch outcome {
            case .needMoreData:
                return []
            case .refused(let error):
                return fail(.websocket, error.detail)
            case .accepted(_, let leftover):
                upgrade = nil
                webSocket = WebSocketSession(role: .client, maxMessageSize: maxMessageSize, maskSource: ids)
                let ready = open(now: now)
                return leftover.isEmpty ? ready : ready + plaintext(leftover, now: now)
            }
        case .open:
            return webSocket != nil ? frames(bytes) : stream(bytes)
        case .connecting, .securing, .closed:
            return []
        }
    }

    private func frames(_ bytes: [UInt8]) -> [Event] {
        guard var session = webSocket else { return [] }
        let outputs = session.receive(bytes)
        webSocket = session
        var events: [Event] = []
        for output in outputs {
            switch output {
            case .message(let payload, _):
                guard let message = try? SIPMessage(parsing: payload, limits: framer.limits) else { continue }
                events.append(.message(message))
            case .send(let frame):
                events += sendPlain(frame)
            case .pong:
                events.append(.pong)
            case .closed(let code, _):
                return events + fail(.closed, "the server closed the WebSocket (\(code))")
            case .failed(let error):
                return events + fail(.protocolError, error.description)
            }
        }
        return events
    }

    private func stream(_ bytes: [UInt8]) -> [Event] {
        framer.append(bytes)
        var events: [Event] = []
        while true {
            do {
                guard let output = try framer.next() else { return events }
                switch output {
                case .message(let message): events.append(.message(message))
                case .keepAlivePong: events.append(.pong)
                case .keepAlivePing: events += sendPlain([13, 10])  // RFC 5626 §4.4.1
                }
            } catch {
                return events + fail(.protocolError, "unparseable SIP stream: \(error)")
            }
        }
    }

    // MARK: Bytes out

    /// Application bytes: through TLS when there is one.
    private func sendPlain(_ bytes: [UInt8]) -> [Event] { writePlain(bytes) }

    private func writePlain(_ bytes: [UInt8]) -> [Event] {
        if let tls {
            do { try tls.write(bytes) } catch { return fail(.closed, error.detail) }
            outbox += tls.drainOutbound()
        } else {
            outbox += bytes
        }
        return flush()
    }

    /// Writes what the socket takes now; the rest waits for `EPOLLOUT`.
    private func flush() -> [Event] {
        while outboxStart < outbox.count, stage != .closed {
            let result = outbox.withUnsafeBytes { raw in
                StreamSocket.write(fd, UnsafeRawBufferPointer(rebasing: raw[outboxStart...]))
            }
            switch result {
            case .bytes(let n): outboxStart += n
            case .wouldBlock: return []
            case .endOfFile: return fail(.closed, "the server closed the connection")
            case .failed(let reason): return fail(.closed, reason)
            }
        }
        if outboxStart >= outbox.count {
            outbox = []
            outboxStart = 0
        }
        return []
    }

    private func fail(_ cause: LoadFailureCause, _ reason: String) -> [Event] {
        guard stage != .closed else { return [] }
        closeDescriptor()
        return [.failed(cause, reason)]
    }

    private func closeDescriptor() {
        stage = .closed
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
        outbox = []
        outboxStart = 0
    }
}

/// Why a line of connection-oriented load failed, counted per cause in the summary.
enum LoadFailureCause: String, CaseIterable, Sendable {
    /// TCP connect refused, unreachable, or no answer within `--timeout`.
    case connect
    /// The TLS handshake failed (certificate, protocol).
    case tls
    /// The WebSocket upgrade was refused (RFC 6455 §4.1, RFC 7118 §4.1).
    case websocket
    /// The server closed the connection or a read/write failed.
    case closed
    /// The server broke the framing (SIP stream, WebSocket frames).
    case protocolError = "protocol"
    /// The connection or the registration took longer than `--timeout`.
    case timeout
    /// The registrar refused the registration (an error status, credentials refused).
    case sip
    /// No pong within 10 s of a keep-alive ping (RFC 5626 §4.4.1: the flow has failed).
    case keepAlive = "keep_alive"
}

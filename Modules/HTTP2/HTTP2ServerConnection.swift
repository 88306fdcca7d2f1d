import HTTPLite
import TLSMemory

/// One accepted connection of an ``HTTP2Server``: TLS (memory BIOs) under an nghttp2 session,
/// driven by the socket's events. Requests are handed to the server's handler concurrently (many
/// streams in flight on one connection, as APNs wants); each answer is submitted on its stream and
/// the frames flushed at once.
actor HTTP2ServerConnection {
    typealias Report = @Sendable (Event) async -> Void

    /// What the connection tells its server (for the connection table and the counters).
    enum Event: Sendable {
        /// TLS is up with ALPN `h2` (one full handshake).
        case handshake(version: String)
        /// A request arrived while none was in flight.
        case busy
        /// A request was answered; `idle` when no other is in flight.
        case answered(idle: Bool)
        /// The connection failed (one line, no peer data in it).
        case failed(String)
    }

    let tcp: TCPConnection
    let number: Int
    private let tls: TLSMemorySession
    private let h2: HTTP2ServerSession
    private let handler: HTTP2Server.Handler
    private let report: Report
    private var established = false
    private var inFlight = 0
    private var closed = false

    init(
        tcp: TCPConnection, number: Int, context: TLSServerContext, limits: HTTP2ServerSession.Limits,
        handler: @escaping HTTP2Server.Handler, report: @escaping Report
    ) throws(HTTP2Error) {
        self.tcp = tcp
        self.number = number
        do { tls = try TLSMemorySession(context: context.ctx, role: .server) } catch {
            throw HTTP2Error(.tls, error.message)
        }
        h2 = try HTTP2ServerSession(limits: limits)
        self.handler = handler
        self.report = report
    }

    /// Reads until the peer or we close.
    func run() async {
        defer { close() }
        for await event in tcp.events {
            guard case .data(let bytes) = event, !closed else { break }
            tls.feed(bytes)
            if !established {
                switch tls.handshake() {
                case .wantMore:
                    send(tls.drainOutbound())
                    continue
                case .failed:
                    send(tls.drainOutbound())  // the alert
                    await report(.failed("TLS handshake failed: \(OpenSSLError.last())"))
                    return
                case .done:
                    send(tls.drainOutbound())
                    guard tls.alpn == "h2" else {
                        await report(.failed("client did not negotiate h2 (ALPN)"))
                        return
                    }
                    established = true
                    await report(.handshake(version: tls.version))
                }
            }
            let plaintext: [UInt8]
            do { plaintext = try tls.readPlaintext() } catch {
                await report(.failed(error.message))
                return
            }
            do {
                for (stream, request) in try h2.receive(plaintext) { await start(stream, request) }
            } catch {
                await flush()  // nghttp2's GOAWAY
                await report(.failed(error.detail))
                return
            }
            await flush()
            if tls.peerClosed || h2.finished { return }
        }
    }

    private func start(_ stream: Int32, _ request: HTTP2Request) async {
        var request = request
        request.connection = number
        inFlight += 1
        if inFlight == 1 { await report(.busy) }
        let handler = handler
        Task {
            let response = await handler(request)
            await self.answer(stream, response)
        }
    }

    private func answer(_ stream: Int32, _ response: HTTP2Response) async {
        inFlight -= 1
        guard !closed else { return }
        h2.respond(stream: stream, response)
        await flush()
        await report(.answered(idle: inFlight == 0))
    }

    /// nghttp2's pending frames, encrypted, to the socket.
    private func flush() async {
        let frames = h2.outbound()
        guard !frames.isEmpty else { return }
        do { try tls.write(frames) } catch {
            close()
            return
        }
        send(tls.drainOutbound())
    }

    /// Ciphertext to the socket, in the order TLS produced it (``TCPConnection/enqueue(_:timeoutMs:done:)``:
    /// queued synchronously from the actor, so no two flushes can swap records).
    private func send(_ bytes: [UInt8]) {
        guard !bytes.isEmpty, !closed else { return }
        tcp.enqueue(bytes) { [weak self] ok in
            guard !ok, let self else { return }
            Task { await self.close() }
        }
    }

    /// GOAWAY, close_notify, then the socket (server stop).
    func shutDown() async {
        guard !closed else { return }
        if established {
            h2.goAway()
            await flush()
            tls.shutdown()
            send(tls.drainOutbound())
        }
        close()
    }

    func close() {
        guard !closed else { return }
        closed = true
        tcp.close()
    }
}

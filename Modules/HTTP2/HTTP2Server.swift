import HTTPLite

/// An HTTP/2 server over TLS (ALPN `h2` only, RFC 9113 §3.2): HTTPLite's ``TCPListener`` accepts,
/// each connection is an ``HTTP2ServerConnection`` (OpenSSL + libnghttp2), and a handler maps each
/// request to a response. It is what the push provider emulator serves Apple's and Google's APIs
/// with, so any client — ours over libcurl, `curl --http2`, `nghttp`, another team's gateway —
/// talks to it as to the real hosts.
///
/// Bounded like every listener here (THREATS.md) through HTTPLite's ``ConnectionTable``: a cap on
/// open connections with eviction of the quietest (never one with a request in flight), the TLS
/// handshake due within `headerTimeoutMs` of the accept, and an idle timeout for connections with
/// no stream open (providers keep theirs open for hours: the default is 1 h). Out of descriptors,
/// the quietest connection is evicted (``TCPListener/descriptorPressure``).
public actor HTTP2Server {
    public typealias Handler = @Sendable (HTTP2Request) async -> HTTP2Response

    /// What the server has done so far (the bench counts handshakes: one per reused connection).
    public struct Stats: Sendable, Hashable {
        /// TCP connections accepted (before any TLS).
        public var accepted = 0
        /// Completed TLS handshakes with ALPN h2 — each one a new provider connection.
        public var tlsHandshakes = 0
        /// Connections that failed (handshake, ALPN, HTTP/2 protocol error).
        public var failed = 0
        /// Requests answered.
        public var requests = 0
        /// Connections closed by the table, by reason (`evicted`, `refused`, `handshake_timeout`,
        /// `idle_timeout`, `descriptor_evicted`).
        public var closedBy: [String: Int] = [:]
    }

    public nonisolated let host: String
    public nonisolated let port: UInt16
    private let listener: TCPListener
    private let context: TLSServerContext
    private let limits: HTTP2ServerSession.Limits
    private let handler: Handler
    private var table: ConnectionTable<ObjectIdentifier>
    private var connections: [ObjectIdentifier: HTTP2ServerConnection] = [:]
    private var tasks: [Task<Void, Never>] = []
    private var next = 0
    private let epoch = ContinuousClock.now
    public private(set) var stats = Stats()
    /// The last connection failure, one line (diagnostics).
    public private(set) var lastFailure: String?

    /// `maxBodyBytes`: body bytes kept per request (more is counted: the handler sees
    /// ``HTTP2Request/bodyTruncated`` and answers 413 without the server buffering it).
    public init(
        host: String = "127.0.0.1", port: UInt16 = 0, identity: TLSServerIdentity,
        connections: ConnectionLimits = ConnectionLimits(headerTimeoutMs: 10_000, idleTimeoutMs: 3_600_000),
        maxBodyBytes: Int = 65_536, handler: @escaping Handler
    ) throws(HTTP2Error) {
        do { listener = try TCPListener(host: host, port: port) } catch {
            throw HTTP2Error(.network, error.description)
        }
        context = try TLSServerContext(identity: identity)
        self.host = host
        self.port = listener.port
        var limits = HTTP2ServerSession.Limits()
        limits.maxBodyBytes = maxBodyBytes
        self.limits = limits
        self.handler = handler
        table = ConnectionTable(limits: connections)
    }

    /// Open connections now.
    public var openConnections: Int { connections.count }

    /// The listener's `accept()` failures for want of descriptors (``TCPListener/acceptFailures``).
    public nonisolated var acceptFailures: Int { listener.acceptFailures }

    public func start() {
        guard tasks.isEmpty else { return }
        let listener = listener
        tasks.append(
            Task { [weak self] in
                for await tcp in listener.connections {
                    guard let self else { tcp.close(); return }
                    await self.adopt(tcp)
                }
            })
        tasks.append(
            Task { [weak self] in
                for await _ in listener.descriptorPressure { await self?.evict(reason: "descriptor_evicted") }
            })
        tasks.append(table.limits.sweepLoop { [weak self] in await self?.sweep() != nil })
    }

    /// Stops accepting; open connections get GOAWAY and close_notify, then close.
    public func stop() async {
        listener.close()
        for task in tasks { task.cancel() }
        tasks.removeAll()
        let open = Array(connections.values)
        connections.removeAll()
        for connection in open { await connection.shutDown() }
    }

    var nowMs: Int64 {
        let d = epoch.duration(to: .now)
        return d.components.seconds * 1_000 + d.components.attoseconds / 1_000_000_000_000_000
    }

    private func adopt(_ tcp: TCPConnection) {
        let id = ObjectIdentifier(tcp)
        stats.accepted += 1
        switch table.admit(id, peer: tcp.remoteIP, nowMs: nowMs) {
        case .refused:
            stats.closedBy["refused", default: 0] += 1
            tcp.close()
            return
        case .accepted(let evicted):
            if let evicted, let old = connections.removeValue(forKey: evicted) {
                stats.closedBy["evicted", default: 0] += 1
                Task { await old.close() }
            }
        }
        next += 1
        let connection: HTTP2ServerConnection
        do {
            connection = try HTTP2ServerConnection(
                tcp: tcp, number: next, context: context, limits: limits, handler: handler
            ) { [weak self] event in await self?.event(id, event) }
        } catch {
            table.remove(id)
            lastFailure = error.detail
            tcp.close()
            return
        }
        connections[id] = connection
        // Until the handshake is done the connection is "reading": the header timeout applies.
        table.update(id, .reading(sinceMs: nowMs), nowMs: nowMs)
        Task {
            await connection.run()
            self.forget(id)
        }
    }

    private func event(_ id: ObjectIdentifier, _ event: HTTP2ServerConnection.Event) {
        switch event {
        case .handshake:
            stats.tlsHandshakes += 1
            table.update(id, .idle, nowMs: nowMs)
        case .busy:
            table.update(id, .busy, nowMs: nowMs)
        case .answered(let idle):
            stats.requests += 1
            if idle { table.update(id, .idle, nowMs: nowMs) }
        case .failed(let reason):
            stats.failed += 1
            lastFailure = reason
        }
    }

    private func forget(_ id: ObjectIdentifier) {
        connections[id] = nil
        table.remove(id)
    }

    private func evict(reason: String) {
        guard let victim = table.evictQuietest(), let connection = connections.removeValue(forKey: victim) else { return }
        stats.closedBy[reason, default: 0] += 1
        Task { await connection.close() }
    }

    private func sweep() {
        for (id, wasReading) in table.expired(nowMs: nowMs) {
            table.remove(id)
            guard let connection = connections.removeValue(forKey: id) else { continue }
            stats.closedBy[wasReading ? "handshake_timeout" : "idle_timeout", default: 0] += 1
            Task { await connection.shutDown() }
        }
    }
}

import Glibc

/// A minimal HTTP/1.1 server: a ``TCPListener``, one task per connection feeding an
/// ``HTTPRequestParser``, and a handler that maps each request to a response. Keep-alive and
/// pipelining follow the request (RFC 9112 §9.3); a parse error is answered with its status and
/// a one-line reason, then the connection closes. A request whose FIN came with it is still
/// answered (the peer closed only its half, RFC 9112 §9.6). IPv4 only; no TLS, no chunked bodies.
///
/// Connections are bounded by ``ConnectionLimits`` through a ``ConnectionTable``: caps with
/// eviction of the quietest connection, a header timeout (408) and an idle keep-alive timeout,
/// checked by a sweep every ``ConnectionLimits/sweepIntervalMs``.
public actor HTTPServer {
    public typealias Handler = @Sendable (HTTPRequest) async -> HTTPResponse

    public nonisolated let port: UInt16
    public nonisolated let host: String
    public nonisolated let limits: ConnectionLimits
    private let listener: TCPListener
    private let handler: Handler
    private let parserLimits: HTTPParserLimits
    private var acceptTask: Task<Void, Never>?
    private var sweepTask: Task<Void, Never>?
    private var pressureTask: Task<Void, Never>?
    private var connections: [ObjectIdentifier: TCPConnection] = [:]
    private var table: ConnectionTable<ObjectIdentifier>
    private let epoch = ContinuousClock.now
    /// Connections closed for each reason since start (`evicted`, `refused`, `header_timeout`, `idle_timeout`,
    /// `descriptor_evicted`).
    public private(set) var closedBy: [String: Int] = [:]

    public init(
        host: String = "127.0.0.1", port: UInt16 = 0, limits: HTTPParserLimits = HTTPParserLimits(),
        connections: ConnectionLimits = ConnectionLimits(), handler: @escaping Handler
    ) throws(HTTPLiteError) {
        listener = try TCPListener(host: host, port: port)
        self.host = host
        self.port = listener.port
        self.handler = handler
        parserLimits = limits
        self.limits = connections
        table = ConnectionTable(limits: connections)
    }

    /// Open connections now.
    public var openConnections: Int { connections.count }

    /// The listener's `accept()` failures for want of descriptors (``TCPListener/acceptFailures``).
    public nonisolated var acceptFailures: Int { listener.acceptFailures }

    /// Starts accepting connections and the timeout sweep.
    public func start() {
        guard acceptTask == nil else { return }
        let listener = listener
        acceptTask = Task { [weak self] in
            for await connection in listener.connections {
                guard let self else { connection.close(); return }
                await self.adopt(connection)
            }
        }
        pressureTask = Task { [weak self] in
            for await _ in listener.descriptorPressure { await self?.evictForDescriptor() }
        }
        sweepTask = limits.sweepLoop { [weak self] in await self?.sweep() != nil }
    }

    /// Stops accepting and closes every open connection.
    public func stop() {
        listener.close()
        acceptTask?.cancel()
        sweepTask?.cancel()
        pressureTask?.cancel()
        for connection in connections.values { connection.close() }
        connections.removeAll()
        for id in Array(table.entriesIDs) { table.remove(id) }
    }

    var nowMs: Int64 {
        let d = epoch.duration(to: .now)
        return d.components.seconds * 1_000 + d.components.attoseconds / 1_000_000_000_000_000
    }

    private func count(_ reason: String) { closedBy[reason, default: 0] += 1 }

    private func adopt(_ connection: TCPConnection) {
        let id = ObjectIdentifier(connection)
        switch table.admit(id, peer: connection.remoteIP, nowMs: nowMs) {
        case .refused:
            count("refused")
            Task {
                await connection.write(HTTPResponse.text(503, "too many connections").serialized(keepAlive: false))
                connection.close()
            }
            return
        case .accepted(let evicted):
            if let evicted, let old = connections.removeValue(forKey: evicted) {
                count("evicted")
                old.close()
            }
        }
        connections[id] = connection
        let handler = handler
        let limits = parserLimits
        Task {
            await Self.serve(connection, limits: limits, handler: handler) { phase in
                await self.update(id, phase)
            }
            self.forget(id)
        }
    }

    /// `accept()` ran out of descriptors: the quietest connection makes room (`descriptor_evicted`).
    private func evictForDescriptor() {
        guard let victim = table.evictQuietest(), let connection = connections.removeValue(forKey: victim) else { return }
        count("descriptor_evicted")
        connection.close()
    }

    private func update(_ id: ObjectIdentifier, _ phase: ConnectionTable<ObjectIdentifier>.Phase) {
        let now = nowMs
        if case .reading = phase, case .reading(let since)? = table.phase(id) {
            table.update(id, .reading(sinceMs: since), nowMs: now)  // the request's first byte counts
        } else if case .reading = phase {
            table.update(id, .reading(sinceMs: now), nowMs: now)
        } else {
            table.update(id, phase, nowMs: now)
        }
    }

    private func forget(_ id: ObjectIdentifier) {
        connections[id] = nil
        table.remove(id)
    }

    private func sweep() {
        for (id, wasReading) in table.expired(nowMs: nowMs) {
            table.remove(id)
            guard let connection = connections.removeValue(forKey: id) else { continue }
            if wasReading {
                count("header_timeout")
                Task {
                    await connection.write(
                        HTTPResponse.text(408, "request not complete in time").serialized(keepAlive: false),
                        timeoutMs: 100)
                    connection.close()
                }
            } else {
                count("idle_timeout")
                connection.close()
            }
        }
    }

    /// Reads, parses and answers until the peer closes, asks to close, or sends garbage;
    /// `report` tells the server when a request starts, is being answered, and is done.
    static func serve(
        _ connection: TCPConnection, limits: HTTPParserLimits, handler: Handler,
        report: @Sendable (ConnectionTable<ObjectIdentifier>.Phase) async -> Void
    ) async {
        var parser = HTTPRequestParser(limits: limits)
        defer { connection.close() }
        for await event in connection.events {
            guard case .data(let bytes) = event else { break }
            parser.append(bytes)
            await report(.reading(sinceMs: 0))
            while true {
                let step: HTTPRequestParser.Step
                do { step = try parser.next() } catch {
                    await connection.write(HTTPResponse.error(error).serialized(keepAlive: false))
                    return
                }
                guard case .request(let request) = step else { break }
                await report(.busy)
                let response = await handler(request)
                let keepAlive = request.keepAlive
                guard await connection.write(response.serialized(keepAlive: keepAlive)), keepAlive else { return }
                await report(parser.bufferedCount == 0 ? .idle : .reading(sinceMs: 0))
            }
        }
        // The peer shut its side: requests already complete were answered above. A half request
        // left in the buffer can never complete.
    }
}

extension ConnectionTable {
    var entriesIDs: [ID] { Array(entries.keys) }
}

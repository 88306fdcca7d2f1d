/// A minimal HTTP/1.1 server: a ``TCPListener``, one task per connection feeding an
/// ``HTTPRequestParser``, and a handler that maps each request to a response. Keep-alive and
/// pipelining follow the request (RFC 9112 §9.3); a parse error is answered with its status and
/// a one-line reason, then the connection closes. Loopback IPv4 only; no TLS, no chunked bodies.
public actor HTTPServer {
    public typealias Handler = @Sendable (HTTPRequest) async -> HTTPResponse

    public nonisolated let port: UInt16
    public nonisolated let host: String
    private let listener: TCPListener
    private let handler: Handler
    private let limits: HTTPParserLimits
    private let maxConnections: Int
    private var acceptTask: Task<Void, Never>?
    private var connections: [ObjectIdentifier: TCPConnection] = [:]

    public init(
        host: String = "127.0.0.1", port: UInt16 = 0, limits: HTTPParserLimits = HTTPParserLimits(),
        maxConnections: Int = 64, handler: @escaping Handler
    ) throws(HTTPLiteError) {
        listener = try TCPListener(host: host, port: port)
        self.host = host
        self.port = listener.port
        self.handler = handler
        self.limits = limits
        self.maxConnections = maxConnections
    }

    /// Starts accepting connections.
    public func start() {
        guard acceptTask == nil else { return }
        let listener = listener
        acceptTask = Task { [weak self] in
            for await connection in listener.connections {
                guard let self else { connection.close(); return }
                await self.adopt(connection)
            }
        }
    }

    /// Stops accepting and closes every open connection.
    public func stop() {
        listener.close()
        acceptTask?.cancel()
        for connection in connections.values { connection.close() }
        connections.removeAll()
    }

    private func adopt(_ connection: TCPConnection) {
        guard connections.count < maxConnections else {
            Task {
                await connection.write(HTTPResponse.text(503, "too many connections").serialized(keepAlive: false))
                connection.close()
            }
            return
        }
        let id = ObjectIdentifier(connection)
        connections[id] = connection
        let handler = handler
        let limits = limits
        Task {
            await Self.serve(connection, limits: limits, handler: handler)
            self.forget(id)
        }
    }

    private func forget(_ id: ObjectIdentifier) { connections[id] = nil }

    /// Reads, parses and answers until the peer closes, asks to close, or sends garbage.
    static func serve(_ connection: TCPConnection, limits: HTTPParserLimits, handler: Handler) async {
        var parser = HTTPRequestParser(limits: limits)
        defer { connection.close() }
        for await event in connection.events {
            guard case .data(let bytes) = event else { return }
            parser.append(bytes)
            while true {
                let step: HTTPRequestParser.Step
                do { step = try parser.next() } catch {
                    await connection.write(HTTPResponse.error(error).serialized(keepAlive: false))
                    return
                }
                guard case .request(let request) = step else { break }
                let response = await handler(request)
                let keepAlive = request.keepAlive
                guard await connection.write(response.serialized(keepAlive: keepAlive)), keepAlive else { return }
            }
        }
    }
}

import Testing

@testable import HTTPLite

/// ``ConnectionTable`` alone (pure): caps, eviction of the quietest, refusals, timeouts.
@Suite struct ConnectionTableTests {
    typealias Table = ConnectionTable<Int>

    /// One sweep rule for every server over the table: a quarter of the shorter timeout, 10 ms … 1 s.
    @Test func sweepIntervalIsAQuarterOfTheShorterTimeoutWithinBounds() {
        #expect(ConnectionLimits(headerTimeoutMs: 2_000, idleTimeoutMs: 3_600_000).sweepIntervalMs == 500)
        #expect(ConnectionLimits(headerTimeoutMs: 5_000, idleTimeoutMs: 400).sweepIntervalMs == 100)
        #expect(ConnectionLimits(headerTimeoutMs: 10_000, idleTimeoutMs: 30_000).sweepIntervalMs == 1_000)
        #expect(ConnectionLimits(headerTimeoutMs: 20, idleTimeoutMs: 20).sweepIntervalMs == 10)
    }

    @Test func globalCapEvictsTheQuietestNotBusy() {
        var table = Table(limits: ConnectionLimits(maxConnections: 3, maxPerPeer: 10))
        for id in 1...3 { #expect(table.admit(id, peer: "a", nowMs: Int64(id)) == .accepted(evicting: nil)) }
        table.update(1, .busy, nowMs: 10)  // being answered: never evicted
        table.update(2, .idle, nowMs: 20)  // activity: no longer the quietest
        #expect(table.admit(4, peer: "b", nowMs: 30) == .accepted(evicting: 3))
        #expect(table.admit(5, peer: "b", nowMs: 31) == .accepted(evicting: 2))
        table.update(4, .busy, nowMs: 32)
        table.update(5, .busy, nowMs: 32)
        #expect(table.admit(6, peer: "c", nowMs: 33) == .refused)  // every candidate is mid-answer
        #expect(table.count == 3)
    }

    @Test func perPeerCapEvictsThatPeersOwn() {
        var table = Table(limits: ConnectionLimits(maxConnections: 100, maxPerPeer: 2))
        _ = table.admit(1, peer: "evil", nowMs: 0)
        _ = table.admit(2, peer: "phone", nowMs: 1)
        _ = table.admit(3, peer: "evil", nowMs: 2)
        #expect(table.admit(4, peer: "evil", nowMs: 3) == .accepted(evicting: 1))
        #expect(table.count(peer: "evil") == 2 && table.count(peer: "phone") == 1)
    }

    @Test func timeouts() {
        var table = Table(limits: ConnectionLimits(headerTimeoutMs: 100, idleTimeoutMs: 1_000))
        _ = table.admit(1, peer: "a", nowMs: 0)
        _ = table.admit(2, peer: "a", nowMs: 0)
        table.update(2, .reading(sinceMs: 50), nowMs: 50)
        _ = table.admit(3, peer: "a", nowMs: 0)
        table.update(3, .busy, nowMs: 0)
        #expect(table.expired(nowMs: 149).isEmpty)
        #expect(table.expired(nowMs: 150).map(\.id) == [2])
        #expect(table.expired(nowMs: 150).first?.wasReading == true)
        #expect(Set(table.expired(nowMs: 1_000).map(\.id)) == [1, 2])  // busy never expires
    }
}

/// ``HTTPServer`` bounds over real sockets: idle and header timeouts, eviction, half-close.
@Suite struct HTTPServerLimitsTests {
    static func server(_ limits: ConnectionLimits) throws -> HTTPServer {
        try HTTPServer(connections: limits) { _ in .text(200, "ok") }
    }

    /// Reads until the server closes; the bytes received.
    static func drain(_ connection: TCPConnection) async -> [UInt8] {
        var buffer: [UInt8] = []
        for await event in connection.events {
            guard case .data(let bytes) = event else { break }
            buffer += bytes
        }
        return buffer
    }

    @Test func idleConnectionIsClosedAfterTheIdleTimeout() async throws {
        let server = try Self.server(ConnectionLimits(headerTimeoutMs: 5_000, idleTimeoutMs: 200))
        await server.start()
        defer { Task { await server.stop() } }
        let connection = try TCPConnection.connect(host: "127.0.0.1", port: server.port)
        let started = ContinuousClock.now
        #expect(await Self.drain(connection).isEmpty)  // closed by the server, nothing sent
        #expect(started.duration(to: .now) >= .milliseconds(190))
        #expect(await server.closedBy["idle_timeout"] == 1)
    }

    @Test func slowRequestGets408() async throws {
        let server = try Self.server(ConnectionLimits(headerTimeoutMs: 200, idleTimeoutMs: 10_000))
        await server.start()
        defer { Task { await server.stop() } }
        let connection = try TCPConnection.connect(host: "127.0.0.1", port: server.port)
        _ = await connection.write(Array("GET / HTTP/1.1\r\nHost: h\r\n".utf8))  // never finished
        let answer = try #require(HTTPResponseHead.parse(await Self.drain(connection))?.0)
        #expect(answer.status == 408)
        #expect(await server.closedBy["header_timeout"] == 1)
    }

    /// At the cap the quietest idle connection makes room: a fresh request is always answered.
    @Test func freshRequestEvictsAnIdleOne() async throws {
        let server = try Self.server(ConnectionLimits(maxConnections: 4, idleTimeoutMs: 60_000))
        await server.start()
        defer { Task { await server.stop() } }
        var idle: [TCPConnection] = []
        for _ in 0..<4 { idle.append(try TCPConnection.connect(host: "127.0.0.1", port: server.port)) }
        #expect(await eventually { await server.openConnections == 4 })
        let answers = try await HTTPServerTests.exchange(server.port, "GET / HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(answers.first?.status == 200)
        #expect(await Self.drain(idle[0]).isEmpty)  // the oldest idle one was closed
        #expect(await server.closedBy["evicted"] == 1)
        for connection in idle { connection.close() }
    }

    /// A request whose FIN comes right behind it (the client shut its write side) is answered.
    @Test func requestWithItsFINIsAnswered() async throws {
        let server = try Self.server(ConnectionLimits())
        await server.start()
        defer { Task { await server.stop() } }
        for _ in 0..<50 {
            let connection = try TCPConnection.connect(host: "127.0.0.1", port: server.port)
            _ = await connection.write(Array("GET / HTTP/1.1\r\nHost: h\r\n\r\n".utf8))
            connection.finishWriting()
            let answer = HTTPResponseHead.parse(await Self.drain(connection))?.0
            #expect(answer?.status == 200)
            connection.close()
        }
    }
}

/// A bounded poll (IO wait, not a protocol timer).
func eventually(timeout: Duration = .seconds(10), _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now.advanced(by: timeout)
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))  // poll interval of a bounded wait
    }
    return await condition()
}

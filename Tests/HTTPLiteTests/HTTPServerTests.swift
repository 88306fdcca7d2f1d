import Testing

@testable import HTTPLite

/// Real loopback sockets: a server, raw clients, keep-alive, pipelining and errors.
@Suite struct HTTPServerTests {
    static func exchange(_ port: UInt16, _ text: String, responses: Int = 1) async throws -> [HTTPResponseHead] {
        let connection = try TCPConnection.connect(host: "127.0.0.1", port: port)
        defer { connection.close() }
        #expect(await connection.write(Array(text.utf8)))
        var buffer: [UInt8] = []
        var out: [HTTPResponseHead] = []
        for await event in connection.events {
            guard case .data(let bytes) = event else { break }
            buffer += bytes
            while let (head, used) = HTTPResponseHead.parse(buffer) {
                out.append(head)
                buffer.removeFirst(used)
            }
            if out.count >= responses { break }
        }
        return out
    }

    static func server() throws -> HTTPServer {
        try HTTPServer { request in
            if request.path == "/echo" { return .text(200, request.method + " " + request.text) }
            return .text(404, "nope")
        }
    }

    @Test func keepAliveAndPipelining() async throws {
        let server = try Self.server()
        await server.start()
        defer { Task { await server.stop() } }
        let requests =
            "POST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\nhi"
            + "GET /missing HTTP/1.1\r\nHost: h\r\n\r\n"
        let responses = try await Self.exchange(server.port, requests, responses: 2)
        #expect(responses.map(\.status) == [200, 404])
        #expect(responses.first?.text == "POST hi\n")
    }

    @Test func malformedRequestGetsStatusAndOneLineThenClose() async throws {
        let server = try Self.server()
        await server.start()
        defer { Task { await server.stop() } }
        let responses = try await Self.exchange(server.port, "GET / HTTP/1.1\r\n\r\n")
        #expect(responses.first?.status == 400)
        #expect(responses.first?.text == "HTTP/1.1 request without Host\n")
        #expect(responses.first?.headers.contains(HTTPHeader("Connection", "close")) == true)
    }

    @Test func manyClientsInParallel() async throws {
        let server = try Self.server()
        await server.start()
        defer { Task { await server.stop() } }
        let port = server.port
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<20 {
                group.addTask {
                    let body = "n\(i)"
                    let r = try await Self.exchange(
                        port,
                        "POST /echo HTTP/1.1\r\nHost: h\r\nConnection: close\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
                    )
                    return r.first?.text == "POST \(body)\n" ? 200 : 0
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 20))
    }
}

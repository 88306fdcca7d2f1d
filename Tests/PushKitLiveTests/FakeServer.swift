import Foundation
import Glibc
import Synchronization

/// A loopback TCP server for tests: each accepted connection is handed to `handler` on its own
/// thread (blocking IO), with helpers to read lines and write bytes.
///
/// Dedicated threads, not `DispatchQueue.global()`: the global queue is as wide as the cores
/// (2 here) and Swift concurrency's pool shares its threads, so a blocking `accept`/`recv` there
/// stalled every suite in the test process for seconds.
final class FakeServer: Sendable {
    final class Connection: Sendable {
        let fd: Int32
        private let pending = Mutex<[UInt8]>([])
        init(fd: Int32) { self.fd = fd }

        func write(_ text: String) {
            let bytes = Array(text.utf8)
            _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress!, bytes.count, Int32(MSG_NOSIGNAL)) }
        }

        /// Reads one line (without the newline); nil at end of stream.
        func readLine() -> String? {
            while true {
                if let line = pending.withLock({ buffer -> String? in
                    guard let i = buffer.firstIndex(of: 10) else { return nil }
                    let line = String(decoding: buffer[..<i], as: UTF8.self)
                    buffer.removeFirst(i + 1)
                    return line
                }) {
                    return line
                }
                var chunk = [UInt8](repeating: 0, count: 4096)
                let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, 4096, 0) }
                if n <= 0 { return nil }
                pending.withLock { $0 += chunk.prefix(n) }
            }
        }

        /// Reads an HTTP request: request line, headers, body (Content-Length).
        func readHTTPRequest() -> (line: String, body: String)? {
            guard let requestLine = readLine() else { return nil }
            var length = 0
            while let header = readLine(), header != "\r", !header.isEmpty {
                let lower = header.lowercased()
                if lower.hasPrefix("content-length:") {
                    length = Int(lower.dropFirst(15).filter(\.isNumber)) ?? 0
                }
            }
            var body: [UInt8] = pending.withLock { buffer in
                let n = min(length, buffer.count)
                defer { buffer.removeFirst(n) }
                return Array(buffer.prefix(n))
            }
            while body.count < length {
                var chunk = [UInt8](repeating: 0, count: length - body.count)
                let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
                if n <= 0 { break }
                body += chunk.prefix(n)
            }
            return (
                String(requestLine.dropLast(requestLine.hasSuffix("\r") ? 1 : 0)), String(decoding: body, as: UTF8.self)
            )
        }

        func close() {
            shutdown(fd, Int32(SHUT_RDWR))
            Glibc.close(fd)
        }
    }

    let port: UInt16
    private let fd: Int32

    init(handler: @escaping @Sendable (Connection) -> Void) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            port = 0
            throw FakeServerError()
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(fd, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        let listener = fd
        Thread.detachNewThread {
            while true {
                let client = accept(listener, nil, nil)
                if client < 0 { return }
                let connection = Connection(fd: client)
                Thread.detachNewThread { handler(connection) }
            }
        }
    }

    func stop() {
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
    }
}

struct FakeServerError: Error {}

/// Requests a fake server saw.
final class RequestLog: Sendable {
    private let storage = Mutex<[(line: String, body: String)]>([])
    func append(_ request: (line: String, body: String)) { storage.withLock { $0.append(request) } }
    var all: [(line: String, body: String)] { storage.withLock { $0 } }
}

/// A fake gateway HTTP API: records requests, answers acks with `ackBody`.
final class FakeGateway: Sendable {
    let log = RequestLog()
    let server: FakeServer

    init(ackBody: String = "{\"call_active\":true}") throws {
        let log = self.log
        server = try FakeServer { connection in
            guard let request = connection.readHTTPRequest() else { return connection.close() }
            log.append(request)
            let answer = request.line.contains("voip-push-ack") ? ackBody : "{}"
            connection.write(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(answer.utf8.count)\r\nConnection: close\r\n\r\n\(answer)"
            )
            connection.close()
        }
    }

    var port: UInt16 { server.port }
    func stop() { server.stop() }
}

/// A fake APNs emulator device side: keeps the latest connection, records its hello line.
final class FakeAPNs: Sendable {
    let server: FakeServer

    init() throws {
        let box = Box()
        server = try FakeServer { connection in
            guard let hello = connection.readLine() else { return }
            box.set(connection, hello)
            while connection.readLine() != nil {}
            box.closed(connection)
        }
        self.box = box
    }

    let box: Box
    var port: UInt16 { server.port }

    final class Box: Sendable {
        let current = Mutex<FakeServer.Connection?>(nil)
        let hellos = Mutex<[String]>([])
        func set(_ c: FakeServer.Connection, _ hello: String) {
            current.withLock { $0 = c }
            hellos.withLock { $0.append(hello) }
        }
        func closed(_ c: FakeServer.Connection) { current.withLock { if $0 === c { $0 = nil } } }
    }

    var connected: Bool { box.current.withLock { $0 != nil } }
    var hellos: [String] { box.hellos.withLock { $0 } }

    /// Delivers one push line; false when no device is connected (expiration 0: dropped).
    @discardableResult
    func push(pushID: String, callID: String, caller: String = "1001", topic: String = "com.example.astra.voip") -> Bool
    {
        guard let c = box.current.withLock({ $0 }) else { return false }
        c.write(
            "{\"apns_id\":\"00000000-0000-4000-8000-000000000001\",\"push_type\":\"voip\",\"topic\":\"\(topic)\",\"priority\":10,\"expiration\":0,\"payload\":{\"push_id\":\"\(pushID)\",\"caller\":\"\(caller)\",\"call_id\":\"\(callID)\",\"aps\":{}}}\n"
        )
        return true
    }

    func stop() { server.stop() }
}

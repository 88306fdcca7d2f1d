import AstraTestSupport
import Dispatch
import Glibc
import Synchronization
import Testing

@testable import HTTPLite

/// Real loopback sockets against ``TCPConnection``'s outbox: connections share a few queues, so a
/// peer that does not read must hold up nobody else, its bytes must still arrive whole and in
/// order once it reads, and a peer that never reads is given up on after the write's timeout.
@Suite struct TCPConnectionTests {
    /// A plain blocking client socket that reads only when told (receive timeout 10 s, so a test
    /// can never hang on it).
    static func rawConnect(_ port: UInt16) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = try SocketAddressV4.make(host: "127.0.0.1", port: port)
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        try #require(fd >= 0 && rc == 0)
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    /// Blocking work on a Dispatch thread of its own, never on the cooperative pool.
    static func offPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            DispatchQueue(label: "astra.test.blocking").async { continuation.resume(returning: work()) }
        }
    }

    /// Reads until EOF, an error or the receive timeout; everything read.
    static func readToEnd(_ fd: Int32) -> [UInt8] {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                out += buffer[0..<n]
                continue
            }
            if n < 0 && errno == EINTR { continue }
            return out
        }
    }

    /// The server side of the next `count` connections the listener accepts.
    static func accepted(_ listener: TCPListener, _ count: Int) async -> [TCPConnection] {
        var out: [TCPConnection] = []
        for await connection in listener.connections {
            out.append(connection)
            if out.count == count { break }
        }
        return out
    }

    final class Flag: Sendable {
        let value = Mutex<Bool?>(nil)
        func set(_ ok: Bool) { value.withLock { $0 = ok } }
        var get: Bool? { value.withLock { $0 } }
    }

    @Test func aPeerThatDoesNotReadHoldsUpNoOtherConnection() async throws {
        let listener = try TCPListener()
        defer { listener.close() }
        let deaf = try Self.rawConnect(listener.port)
        defer { Glibc.close(deaf) }
        let stuck = try #require(await Self.accepted(listener, 1).first)
        // Far more than loopback's socket buffers hold: the write waits in the outbox.
        let result = Flag()
        stuck.enqueue([UInt8](repeating: 7, count: 32 << 20), timeoutMs: 60_000) { result.set($0) }
        // More connections than there are shared queues, so some share the stuck one's: each
        // answers at once.
        let clients = try (0..<(2 * ConnectionQueues.count)).map { _ in
            try TCPConnection.connect(host: "127.0.0.1", port: listener.port)
        }
        defer { for client in clients { client.close() } }
        let servers = await Self.accepted(listener, clients.count)
        defer { for server in servers { server.close() } }
        // The bounds tell "answered at once" from "held up behind the deaf peer", whose write waits
        // 60 s: generous for a busy CPU, far below the 60 s a shared, stuck queue would take.
        let started = ContinuousClock.now
        for server in servers { #expect(await server.write(Array("pong\n".utf8), timeoutMs: 20_000)) }
        for client in clients {
            var got: [UInt8] = []
            for await event in client.events {
                guard case .data(let bytes) = event else { break }
                got += bytes
                if got.count >= 5 { break }
            }
            #expect(got == Array("pong\n".utf8))
        }
        #expect(started.duration(to: .now) < .seconds(30))
        #expect(result.get == nil, "the deaf peer's write must still be waiting")
        stuck.close()
    }

    @Test func aPeerThatNeverReadsIsGivenUpOnAfterTheTimeout() async throws {
        let listener = try TCPListener()
        defer { listener.close() }
        let deaf = try Self.rawConnect(listener.port)
        defer { Glibc.close(deaf) }
        let stuck = try #require(await Self.accepted(listener, 1).first)
        let started = ContinuousClock.now
        let ok = await stuck.write([UInt8](repeating: 7, count: 32 << 20), timeoutMs: 300)
        let waited = started.duration(to: .now)
        #expect(!ok)
        #expect(waited >= .milliseconds(300) && waited < .seconds(10), "\(waited)")
        // The stream is torn: the connection closed itself, later writes fail at once.
        var ended = false
        for await event in stuck.events where event == .closed { ended = true }
        #expect(ended)
        #expect(!(await stuck.write(Array("late".utf8))))
    }

    @Test func bytesQueuedBehindAFullSocketArriveWholeInOrderBeforeTheClose() async throws {
        let listener = try TCPListener()
        defer { listener.close() }
        let reader = try Self.rawConnect(listener.port)
        defer { Glibc.close(reader) }
        let server = try #require(await Self.accepted(listener, 1).first)
        // 64 numbered chunks of 64 KiB (4 MiB, more than the socket buffers), then close(): the
        // peer reads only after they were all queued, and must get every byte, then EOF.
        let chunks = (0..<64).map { i in [UInt8](repeating: UInt8(i), count: 65_536) }
        let results = Mutex<[Bool]>([])
        for chunk in chunks { server.enqueue(chunk, timeoutMs: 10_000) { ok in results.withLock { $0.append(ok) } } }
        server.close()
        try? await Task.sleep(for: .milliseconds(200))  // the peer starts reading late on purpose
        let reading = ContinuousClock.now
        let received = await Self.offPool { Self.readToEnd(reader) }
        print("4 MiB read behind a full socket in \(reading.duration(to: .now))")
        #expect(received.count == chunks.count * 65_536)
        #expect(received == Array(chunks.joined()))
        let doneAll = await eventually(timeout: .seconds(10)) { results.withLock { $0.count } == chunks.count }
        #expect(doneAll && results.withLock { $0.allSatisfy { $0 } })
    }
}

import AstraTestSupport
import Foundation
import SIPCore
import Testing

@testable import SIPTransport

@Suite("Connection keep-alive on the injected clock (virtual time), IPv6 streams", .serialized)
struct KeepAliveConnectionTests {
    /// The peer answers the first ping with a pong, then goes silent; the connection must
    /// report the flow dead exactly when interval + pong timeout have passed in virtual time.
    @Test("TCP: CRLFCRLF ping, CRLF pong, then silence → keepAliveTimeout", arguments: [false, true])
    func tcpKeepAlive(ipv6: Bool) async throws {
        let pings = Counter()
        let server = try TestServer(ipv6: ipv6) { peer in
            for _ in 0..<2 {
                peer.read(until: [13, 10, 13, 10])
                pings.increment()
                peer.write([13, 10])  // RFC 5626 §4.4.1 pong
            }
            peer.read(until: [13, 10, 13, 10])
            pings.increment()
            peer.waitForClose()  // silent: no pong
        }
        defer { server.finish() }
        let clock = TestClock()
        var options = ConnectionOptions()
        options.log = .discard
        options.keepAlive = KeepAliveConfiguration(interval: .seconds(30), pongTimeout: .seconds(10))
        let connection = try await StreamConnection.open(
            host: ipv6 ? "::1" : "127.0.0.1", port: server.port, transport: .tcp, options: options, clock: clock,
            ids: SeededIdentifierSource(seed: 1))
        #expect(connection.remote.isIPv6 == ipv6)
        var events = connection.events.makeAsyncIterator()

        // Two rounds answered (consecutive pongs must each count as a pong): the timer is
        // re-armed for the next interval instead of the pong timeout each time.
        for round in 1...2 {
            #expect(await sleepers(clock))
            let start = clock.now
            clock.advance(by: .seconds(30))  // interval with 80–100 % jitter: the ping is out
            #expect(await waitUntil { pings.value == round })
            let pongDeadline = start.advanced(by: .seconds(40))
            #expect(await waitUntil { clock.sleeperCount == 1 && clock.nextDeadline != pongDeadline })
            clock.advance(by: .seconds(10))  // the old pong timeout passes harmlessly
            #expect(await connection.isOpen)
        }
        // Third round: no pong → dead once the pong timeout passes.
        #expect(await sleepers(clock))
        clock.advance(by: .seconds(30))
        #expect(await waitUntil { pings.value == 3 })
        #expect(await sleepers(clock))
        clock.advance(by: .seconds(10))
        guard case .closed(let error)? = await events.next() else {
            Issue.record("no close")
            return
        }
        #expect(error.code == .keepAliveTimeout)
        #expect(error.detail.contains("RFC 5626"))
    }

    @Test("WS over IPv6: Ping frame as keep-alive, Pong answers it")
    func webSocketPing() async throws {
        let server = try TestServer(ipv6: true) { peer in
            let request = peer.read(until: [13, 10, 13, 10])
            peer.write(TestServer.webSocketAnswer(to: request, subprotocol: "sip"))
            var decoder = WebSocketFrameDecoder(expectMasked: true)
            var ping: WebSocketFrame?
            while ping == nil {
                let bytes = peer.readSome()
                if bytes.isEmpty { return }
                decoder.append(bytes)
                ping = try? decoder.next()
            }
            if let ping, ping.opcode == .ping {
                peer.write(WebSocketFrame(opcode: .pong, payload: ping.payload).encoded())
                peer.write(WebSocketFrame(opcode: .text, payload: Array(pongSeen.utf8)).encoded())
            }
            // The client's close (RFC 6455 §7.1.2): answer its Close, then close TCP first
            // (§7.1.1) — the client's bound runs on the test clock, which nobody advances here.
            var sawClose = false
            while !sawClose {
                let bytes = peer.readSome()
                if bytes.isEmpty { return }
                decoder.append(bytes)
                while let frame = try? decoder.next() {
                    if frame.opcode == .close { sawClose = true }
                }
            }
            peer.write(WebSocketFrame(opcode: .close, payload: [0x03, 0xE8]).encoded())
        }
        defer { server.finish() }
        let clock = TestClock()
        var options = ConnectionOptions()
        options.log = .discard
        options.keepAlive = KeepAliveConfiguration(interval: .seconds(20), pongTimeout: .seconds(5))
        let connection = try await StreamConnection.open(
            host: "::1", port: server.port, transport: .ws, options: options, clock: clock,
            ids: SeededIdentifierSource(seed: 2))
        var events = connection.events.makeAsyncIterator()
        #expect(await sleepers(clock))
        clock.advance(by: .seconds(20))
        guard case .message(let m)? = await events.next() else {
            Issue.record("no message")
            return
        }
        #expect(m.text == pongSeen)
        await connection.close()
    }

    func waitUntil(_ condition: @Sendable () -> Bool) async -> Bool {
        await eventually(timeout: .seconds(10)) { condition() }
    }
}

/// Waits (polling every 2 ms, not spinning: other suites share the 2 cores) until a task
/// sleeps on `clock`.
func sleepers(_ clock: TestClock, _ count: Int = 1) async -> Bool {
    await eventually(timeout: .seconds(10), every: .milliseconds(2)) { clock.sleeperCount >= count }
}

/// A SIP message the WebSocket test peer sends once it answered our Ping.
let pongSeen =
    "OPTIONS sip:pong@seen SIP/2.0\r\nVia: SIP/2.0/WS x.invalid;branch=z9hG4bKp\r\nCall-ID: p\r\nCSeq: 1 OPTIONS\r\n\r\n"

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

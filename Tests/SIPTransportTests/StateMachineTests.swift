import AstraTestSupport
import SIPCore
import Testing

@testable import SIPTransport

@Suite("Keep-alive and reconnect state machines (virtual time)")
struct StateMachineTests {
    @Test("RFC 5626 §4.4.1 ping, pong, dead")
    func keepAlive() {
        let config = KeepAliveConfiguration(interval: .seconds(30), pongTimeout: .seconds(10))
        var machine = KeepAliveMachine(configuration: config)
        #expect(machine.start() == [.armTimer(after: .seconds(30))])
        #expect(machine.timerFired() == [.armTimer(after: .seconds(10)), .sendPing])
        #expect(machine.pongReceived() == [.armTimer(after: .seconds(30))])
        #expect(machine.pongReceived() == [])
        #expect(machine.timerFired() == [.armTimer(after: .seconds(10)), .sendPing])
        guard case .flowDead = machine.timerFired().first else {
            Issue.record("not dead")
            return
        }
        #expect(machine.isDead)
        #expect(machine.timerFired() == [])
        #expect(config.detectionBound == .seconds(40))
    }

    @Test("Keep-alive waits are jittered within 80–100 % of the interval")
    func keepAliveJitter() {
        let config = KeepAliveConfiguration(interval: .seconds(100), pongTimeout: .seconds(10))
        var machine = KeepAliveMachine(configuration: config, jitter: SeededIdentifierSource(seed: 5))
        var waits: [Duration] = []
        if case .armTimer(let d) = machine.start().first { waits.append(d) }
        for _ in 0..<50 {
            _ = machine.timerFired()
            if case .armTimer(let d) = machine.pongReceived().first { waits.append(d) }
        }
        #expect(waits.count == 51)
        #expect(waits.allSatisfy { $0 >= .seconds(80) && $0 <= .seconds(100) })
        #expect(Set(waits).count > 40)
    }

    @Test("RFC 5626 §4.5 capped exponential back-off with 50–100 % jitter")
    func backoff() {
        let config = ReconnectConfiguration(baseTime: .seconds(1), maxTime: .seconds(16))
        #expect((0...6).map(config.ceiling(failures:)) == [1, 2, 4, 8, 16, 16, 16].map { Duration.seconds($0) })
        var machine = ReconnectMachine(configuration: config, jitter: SeededIdentifierSource(seed: 11))
        #expect(machine.start() == [.connect(attempt: 1)])
        for failures in 1...8 {
            guard case .scheduleRetry(let attempt, let delay) = machine.connectFailed().first else {
                Issue.record("no retry")
                return
            }
            #expect(attempt == failures + 1)
            let ceiling = config.ceiling(failures: failures)
            #expect(delay >= ceiling / 2 && delay <= ceiling)
            #expect(machine.retryTimerFired() == [.connect(attempt: attempt)])
        }
        #expect(machine.connectSucceeded() == [])
        #expect(machine.consecutiveFailures == 0)
        guard case .scheduleRetry(1, let delay) = machine.flowDied().first else {
            Issue.record("no retry")
            return
        }
        #expect(delay >= .milliseconds(500) && delay <= .seconds(1))
        #expect(machine.flowDied() == [])
    }
}

/// A connection double: `kill()` ends it like a dead flow.
final class FakeConnection: FlowConnection, @unchecked Sendable {
    let transport = TransportKind.tcp
    let remote = SocketAddress(ip: "192.0.2.1", port: 5060)!
    let local: SocketAddress? = SocketAddress(ip: "192.0.2.2", port: 40000)
    let events: AsyncStream<ConnectionEvent>
    let sink: AsyncStream<ConnectionEvent>.Continuation
    init() { (events, sink) = AsyncStream.makeStream(of: ConnectionEvent.self) }
    func send(_ message: [UInt8]) async throws(TransportError) {}
    func close() async { sink.finish() }
    func kill() {
        sink.yield(.closed(TransportError(.keepAliveTimeout, "no pong")))
        sink.finish()
    }
}

@Suite("SIPFlow reconnects with back-off (TestClock)")
struct SIPFlowVirtualTimeTests {
    @Test("Dead flow → down event → back-off → reconnect, all in virtual time")
    func reconnect() async throws {
        let clock = TestClock()
        let plan = Plan()
        let flow = SIPFlow(
            target: FlowTarget(host: "192.0.2.1", transport: .tcp),
            reconnect: ReconnectConfiguration(baseTime: .seconds(2), maxTime: .seconds(8)),
            clock: clock, ids: SeededIdentifierSource(seed: 1),
            connector: { _ in try await plan.next() })
        var events = flow.events.makeAsyncIterator()
        await flow.start()
        #expect(await next(&events) == "connecting 1")
        #expect(await next(&events) == "connected")
        await plan.connections[0].kill()
        #expect(await next(&events) == "down keepAliveTimeout")
        let retry = await next(&events)
        #expect(retry.hasPrefix("retry 1 after"))
        // Attempts 1 and 2 fail (connect refused): back-off grows; attempt 3 succeeds.
        for attempt in 1...3 {
            #expect(await sleepers(clock))
            clock.advance(by: .seconds(8))
            #expect(await next(&events) == "connecting \(attempt)")
            if attempt < 3 {
                #expect(await next(&events) == "down connectFailed")
                #expect(await next(&events).hasPrefix("retry \(attempt + 1) after"))
            }
        }
        #expect(await next(&events) == "connected")
        await flow.stop()
        #expect(await next(&events) == "stopped")
    }

    actor Plan {
        var connections: [FakeConnection] = []
        var calls = 0
        func next() throws -> any FlowConnection {
            calls += 1
            if calls == 2 || calls == 3 { throw TransportError(.connectFailed, "refused") }
            let c = FakeConnection()
            connections.append(c)
            return c
        }
    }

    func next(_ it: inout AsyncStream<FlowEvent>.Iterator) async -> String {
        guard let event = await it.next() else { return "end" }
        switch event {
        case .connecting(let a): return "connecting \(a)"
        case .connected: return "connected"
        case .message: return "message"
        case .down(let e): return "down \(e.code.rawValue)"
        case .reconnectScheduled(let a, let d): return "retry \(a) after \(d)"
        case .stopped: return "stopped"
        }
    }
}

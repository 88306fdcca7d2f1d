import Foundation
import SIPCore
import Testing

@testable import SIPTransport

/// Collects a flow's events in the background so tests can wait for one (wall clock: real IO).
final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [FlowEvent] = []
    private var consumed = 0
    private let task: Task<Void, Never>

    init(_ stream: AsyncStream<FlowEvent>) {
        let box = Box()
        task = Task { for await event in stream { box.log?.append(event) } }
        box.log = self
    }

    private final class Box: @unchecked Sendable { weak var log: EventLog? }

    private func append(_ event: FlowEvent) { lock.withLock { events.append(event) } }

    /// The next event (after the ones already returned) that matches, within `timeout`.
    func next(timeout: Duration, _ predicate: (FlowEvent) -> Bool) async -> FlowEvent? {
        let deadline = ContinuousClock.now + timeout
        while true {
            let found: FlowEvent? = lock.withLock {
                while consumed < events.count {
                    let event = events[consumed]
                    consumed += 1
                    if predicate(event) { return event }
                }
                return nil
            }
            if let found { return found }
            if ContinuousClock.now >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(5))  // poll interval of a bounded wait
        }
    }

    deinit { task.cancel() }
}

func isConnected(_ e: FlowEvent) -> Bool { if case .connected = e { true } else { false } }
func isDown(_ e: FlowEvent) -> Bool { if case .down = e { true } else { false } }

func options(for server: KamailioServer, insecure: Bool = false) -> ConnectionOptions {
    var options = ConnectionOptions()
    options.tls = TLSOptions(caFile: server.caFile)
    options.connectTimeout = .seconds(20)
    options.handshakeTimeout = .seconds(20)
    return options
}

/// Sends OPTIONS on `flow` and waits for its response; returns the status line.
func pingOptions(_ flow: SIPFlow, events: EventLog, port: UInt16, seq: Int = 1) async throws -> String? {
    guard let info = await flow.info else { return nil }
    try await flow.send(optionsRequest(transport: info.transport, sentBy: info.viaSentBy, port: port, seq: seq))
    let event = await events.next(timeout: .seconds(20)) { event in
        if case .message(let m) = event {
            return m.text.hasPrefix("SIP/2.0") && m.text.contains("CSeq: \(seq) OPTIONS")
        }
        return false
    }
    guard case .message(let response)? = event else { return nil }
    return response.text.split(separator: "\r\n").first.map(String.init)
}

extension KamailioPeer {
    @Suite("Real Kamailio (scripts/kamailio.sh)", .serialized)
    struct KamailioTransportTests {
        @Test("OPTIONS over UDP, TCP, TLS, WS and WSS gets 200", arguments: TransportKind.allCases)
        func optionsOverEveryTransport(transport: TransportKind) async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            let o = options(for: server)
            let flow = SIPFlow(
                target: FlowTarget(host: "127.0.0.1", port: server.port(for: transport), transport: transport),
                options: o)
            let events = EventLog(flow.events)
            await flow.start()
            let connected = await events.next(timeout: .seconds(30)) {
                if case .down(let e) = $0 { Issue.record("down: \(e)") }
                return isConnected($0)
            }
            #expect(connected != nil)
            let info = await flow.info
            #expect(info?.isReliable == (transport != .udp))
            if transport.isWebSocket { #expect(info?.viaSentBy.hasSuffix(".invalid") == true) }
            let status = try await pingOptions(flow, events: events, port: server.port(for: transport))
            #expect(status == "SIP/2.0 200 OK")
            await flow.stop()
        }

        @Test("WSS refuses a server whose certificate does not verify, and says why")
        func wssRefusesUnverifiedCertificate() async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            var noCA = ConnectionOptions()
            noCA.log = .discard
            await #expect {
                _ = try await StreamConnection.open(
                    host: "127.0.0.1", port: server.wssPort, transport: .wss, options: noCA)
            } throws: { error in
                let e = error as! TransportError
                return e.code == .certificateVerificationFailed
                    && e.detail.contains("unable to get local issuer certificate")
            }
            var wrongName = options(for: server)
            wrongName.log = .discard
            wrongName.tls.serverName = "sip.example.com"
            await #expect {
                _ = try await StreamConnection.open(
                    host: "127.0.0.1", port: server.wssPort, transport: .wss, options: wrongName)
            } throws: { error in
                let e = error as! TransportError
                return e.code == .certificateVerificationFailed && e.detail.contains("mismatch")
            }
            // By name: SNI + DNS-name verification ("localhost" is in the certificate); when
            // localhost resolves to ::1 first, that refused address is skipped for 127.0.0.1.
            let byName = try await StreamConnection.open(
                host: "localhost", port: server.wssPort, transport: .wss, options: options(for: server))
            #expect(byName.remote.ip == "127.0.0.1")
            await byName.close()
            // The insecure switch connects anyway (and logs a warning).
            let warnings = Captured()
            var insecure = ConnectionOptions()
            insecure.tls = .insecure()
            insecure.log = TransportLog { level, text in if level == .warning { warnings.append(text) } }
            let connection = try await StreamConnection.open(
                host: "127.0.0.1", port: server.wssPort, transport: .wss, options: insecure)
            await connection.close()
            #expect(warnings.lines.contains { $0.contains("verification is DISABLED") })
        }

        @Test(
            "Kamailio dies under an open flow: reported dead within the keep-alive bound, then reconnects",
            arguments: [TransportKind.tcp, .tls, .wss])
        func deadFlowAndReconnect(transport: TransportKind) async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            var opts = options(for: server)
            let keepAlive = KeepAliveConfiguration(interval: .seconds(1), pongTimeout: .seconds(1))
            opts.keepAlive = keepAlive
            let flow = SIPFlow(
                target: FlowTarget(host: "127.0.0.1", port: server.port(for: transport), transport: transport),
                options: opts,
                reconnect: ReconnectConfiguration(baseTime: .milliseconds(200), maxTime: .seconds(1)))
            let events = EventLog(flow.events)
            await flow.start()
            #expect(await events.next(timeout: .seconds(30), isConnected) != nil)

            // While Kamailio answers the pings (CRLF pong / WebSocket Pong), the flow stays up
            // for well over the detection bound.
            #expect(await events.next(timeout: keepAlive.detectionBound * 2, isDown) == nil)

            // Silent death (SIGSTOP: nothing answers, nothing closes): only keep-alive can tell.
            server.script("freeze")
            let frozenAt = ContinuousClock.now
            let down = await events.next(timeout: .seconds(30), isDown)
            let detection = ContinuousClock.now - frozenAt
            guard case .down(let error)? = down else {
                Issue.record("no down event")
                return
            }
            #expect(error.code == .keepAliveTimeout)
            // Bound = interval + pong timeout (2 s); allow 1 s for a loaded 2-core machine.
            #expect(detection <= keepAlive.detectionBound + .seconds(1), "detected after \(detection)")

            // Crash it for good, start it again: the flow reconnects by itself.
            server.script("kill")
            let (status, output) = server.script("start")
            #expect(status == 0, "\(output)")
            let up = await events.next(timeout: .seconds(30), isConnected)
            #expect(up != nil)
            #expect(
                try await pingOptions(flow, events: events, port: server.port(for: transport), seq: 2)
                    == "SIP/2.0 200 OK")

            // A crash with the flow up (the kernel closes the sockets) is reported at once.
            server.script("kill")
            let crash = await events.next(timeout: keepAlive.detectionBound + .seconds(1), isDown)
            #expect(crash != nil)
            await flow.stop()
        }
    }
}

final class Captured: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [String] = []
    func append(_ line: String) { lock.withLock { storage.append(line) } }
    var lines: [String] { lock.withLock { storage } }
}

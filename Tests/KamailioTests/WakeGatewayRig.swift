import AstraTestSupport
import Foundation
import HTTPLite
import JWT
import SIPCore
import Synchronization
import Testing
import WakeGateway

/// The continuous clock, recording every sleep the gateway starts (when it was armed, until
/// when), so a test bounds a timer's firing from when it was armed: under load, the steps
/// before the arming (Kamailio relaying the INVITE, the push exchange) take what they take.
final class ArmingClock: Clock, Sendable {
    typealias Instant = ContinuousClock.Instant
    struct Armed: Sendable {
        let at: Instant
        let deadline: Instant
        var duration: Duration { at.duration(to: deadline) }
    }
    private let base = ContinuousClock()
    private let list = Mutex<[Armed]>([])
    var now: Instant { base.now }
    var minimumResolution: Duration { base.minimumResolution }
    var armed: [Armed] { list.withLock { $0 } }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let at = base.now
        list.withLock { $0.append(Armed(at: at, deadline: deadline)) }
        try await base.sleep(until: deadline, tolerance: tolerance)
    }
}

/// A Kamailio started with KAMAILIO_WAKE_GATEWAY plus an in-process ``WakeGatewayServer`` on
/// that address (real sockets, continuous clock), with its events recorded.
final class WakeGatewayRig: Sendable {
    typealias Gateway = WakeGatewayServer<ArmingClock>
    let server: KamailioServer
    let gateway: Gateway
    let ports: Gateway.Ports
    let recorded: Recorded
    let clock: ArmingClock

    /// The gateway's events with their arrival instants.
    final class Recorded: Sendable {
        let list = Mutex<[(ContinuousClock.Instant, WakeEvent)]>([])
        func withLock<R>(_ body: (inout [(ContinuousClock.Instant, WakeEvent)]) -> R) -> R {
            list.withLock { body(&$0) }
        }
    }

    static let token = (0..<32).map { String(format: "%02x", ($0 * 37 + 11) & 0xFF) }.joined()
    static let topic = "com.example.astra.voip"

    private init(
        server: KamailioServer, gateway: Gateway, ports: Gateway.Ports, recorded: Recorded, clock: ArmingClock
    ) {
        self.server = server
        self.gateway = gateway
        self.ports = ports
        self.recorded = recorded
        self.clock = clock
    }

    /// Starts a rig, runs `body` and stops the gateway and Kamailio before returning, thrown or
    /// not: a stop left to a `Task` after the test may never run (the test process ends first).
    static func with(
        tune: (inout WakeGatewayConfiguration) -> Void = { _ in }, _ body: (WakeGatewayRig) async throws -> Void
    ) async throws {
        let rig = try await start(tune)
        do { try await body(rig) } catch {
            await rig.stop()
            throw error
        }
        await rig.stop()
    }

    /// Kamailio must be told the gateway's SIP port before the gateway binds it, so the port is
    /// picked (``TestPorts``) rather than 0: when something holds it meanwhile, the gateway's
    /// bind fails and the rig starts over on another port.
    static func start(_ tune: (inout WakeGatewayConfiguration) -> Void = { _ in }) async throws -> WakeGatewayRig {
        var lastError: any Error = KamailioError(message: "no attempt")
        for _ in 0..<5 {
            let sipPort = TestPorts.random()
            let server = try KamailioServer.start(wakeGateway: "127.0.0.1:\(sipPort)")
            var configuration = WakeGatewayConfiguration()
            configuration.sipPort = sipPort
            configuration.kamailio = .init(ip: "127.0.0.1", port: server.sipPort)!
            configuration.httpPort = 0
            configuration.apnsDevicePort = 0
            configuration.auth = TokenAPIAuth(verifier: JWTVerifier(keys: [try JWTKey.hmac(secret: Self.secret)]))
            tune(&configuration)
            let recorded = Recorded()
            let clock = ArmingClock()
            let gateway: Gateway
            do {
                gateway = try Gateway(
                    configuration: configuration, clock: clock,
                    emit: { event in recorded.withLock { $0.append((ContinuousClock.now, event)) } })
            } catch {
                lastError = error  // the SIP port is taken: elsewhere
                server.stop()
                continue
            }
            do {
                let ports = try await gateway.start()
                return WakeGatewayRig(server: server, gateway: gateway, ports: ports, recorded: recorded, clock: clock)
            } catch {
                await gateway.stop()
                server.stop()
                throw error
            }
        }
        throw lastError
    }

    func stop() async {
        await gateway.stop()
        server.stop()
    }

    var events: [WakeEvent] { recorded.withLock { $0.map(\.1) } }
    func events(_ name: String) -> [WakeEvent] { events.filter { $0.name == name } }
    func instant(of name: String) -> ContinuousClock.Instant? {
        recorded.withLock { $0.first { $0.1.name == name }?.0 }
    }

    func waitFor(_ name: String, _ timeout: Duration = .seconds(10)) async -> WakeEvent? {
        await eventuallySome(timeout: timeout) { events(name).first }
    }

    // MARK: HTTP API

    /// The rig's HS256 key (fresh per test process, from the CSPRNG).
    static let secret = KeyMaterial.bytes(32)

    /// A user token for `endpoint`, one hour.
    static func bearer(_ endpoint: String) throws -> String {
        let now = Int64(Date().timeIntervalSince1970)
        return try JWTSigner(key: try JWTKey.hmac(secret: secret)).sign([
            "asterisk_endpoint": .string(endpoint), "iat": .int(now), "exp": .int(now + 3_600),
        ])
    }

    func http(_ method: String, _ target: String, _ body: String = "", bearer: String? = nil) async throws
        -> HTTPResponseHead
    {
        let connection = try TCPConnection.connect(host: "127.0.0.1", port: ports.http)
        defer { connection.close() }
        let text =
            "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + (bearer.map { "Authorization: Bearer \($0)\r\n" } ?? "")
            + "Connection: close\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        _ = await connection.write(Array(text.utf8))
        var buffer: [UInt8] = []
        for await event in connection.events {
            guard case .data(let bytes) = event else { break }
            buffer += bytes
            if let (head, _) = HTTPResponseHead.parse(buffer) { return head }
        }
        throw KamailioError(message: "no HTTP response to \(method) \(target)")
    }

    func registerToken(user: String, token: String = WakeGatewayRig.token) async throws {
        let body =
            #"{"asterisk_endpoint":"\#(user)","token":"\#(token)","environment":"sandbox","bundle_id":"com.example.astra","platform":"ios"}"#
        let response = try await http("POST", "/api/v1/users/voip-push-token", body, bearer: try Self.bearer(user))
        try #require(response.status == 200, "\(response.text)")
    }

    func ack(_ pushID: String) async throws -> Int {
        try await http("POST", "/api/v1/users/voip-push-ack", #"{"push_id":"\#(pushID)"}"#).status
    }
}

/// A phone's APNs connection (the device side of the emulator's contract): hello, then one JSON
/// line per delivered push.
final class APNsDevice: Sendable {
    let connection: TCPConnection
    let lines = Lines()

    final class Lines: Sendable {
        let list = Mutex<[String]>([])
        func withLock<R>(_ body: (inout [String]) -> R) -> R { list.withLock { body(&$0) } }
    }
    let reader: Task<Void, Never>

    init(port: UInt16, token: String = WakeGatewayRig.token, topic: String = WakeGatewayRig.topic) async throws {
        connection = try TCPConnection.connect(host: "127.0.0.1", port: port)
        let hello = #"{"token":"\#(token)","topic":"\#(topic)","environment":"sandbox"}"# + "\n"
        _ = await connection.write(Array(hello.utf8))
        let connection = connection
        let lines = lines
        reader = Task {
            var buffer: [UInt8] = []
            for await event in connection.events {
                guard case .data(let bytes) = event else { return }
                buffer += bytes
                while let newline = buffer.firstIndex(of: 10) {
                    let line = String(decoding: buffer[0..<newline], as: UTF8.self)
                    buffer.removeFirst(newline + 1)
                    lines.withLock { $0.append(line) }
                }
            }
        }
    }

    func nextPush(_ timeout: Duration = .seconds(5)) async -> String? {
        await eventuallySome(timeout: timeout) { lines.withLock { $0.first } }
    }

    func close() {
        connection.close()
        reader.cancel()
    }
}

extension WakeEvent {
    func int(_ key: String) -> Int64? { self[key]?.int64Value }
    func string(_ key: String) -> String? { self[key]?.stringValue }
    func bool(_ key: String) -> Bool? { self[key]?.boolValue }
}

/// Milliseconds between two instants.
func ms(_ from: ContinuousClock.Instant, _ to: ContinuousClock.Instant) -> Double {
    let d = from.duration(to: to)
    return Double(d.components.seconds) * 1_000 + Double(d.components.attoseconds) / 1e15
}

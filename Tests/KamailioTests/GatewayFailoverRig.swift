import AstraTestSupport
import Foundation
import HTTP2
import JWT
import PushKitLive
import SIPCore
import SIPTransport
import Synchronization
import WakeGateway

/// The push service of a gateway pair: one APNs provider API (``ProviderEmulatorServer``) and its
/// device side (``PushEmulator``) in the test process, which every gateway pushes to with the
/// team's key (`--apns-url`, `--apns-key-file`, `--provider-ca-file`), as both gateways of a real
/// pair push to Apple. A phone then has one push connection, whichever gateway holds its call,
/// and it outlives a gateway that is killed.
final class SharedPushService: Sendable {
    static let keyID = "ASTRAHA001"
    static let teamID = "ASTRATEAM1"
    let devices: PushEmulator<ContinuousClock>
    let emulator: ProviderEmulatorServer<ContinuousClock>
    let keyFile: String
    let caFile: String

    private init(
        devices: PushEmulator<ContinuousClock>, emulator: ProviderEmulatorServer<ContinuousClock>, keyFile: String,
        caFile: String
    ) {
        self.devices = devices
        self.emulator = emulator
        self.keyFile = keyFile
        self.caFile = caFile
    }

    /// A fresh team key (P-256, from the CSPRNG, in a 0600 file of `directory`), the provider
    /// API on an ephemeral certificate (its PEM beside the key, for the gateways to trust).
    static func start(in directory: String) async throws -> SharedPushService {
        let key = try JWTKey.generate(.es256, keyID: keyID)
        let keyFile = directory + "/apns-team.p8"
        guard FileManager.default.createFile(
            atPath: keyFile, contents: Data(try key.privateKeyPEM().utf8), attributes: [.posixPermissions: 0o600])
        else { throw ToolProcessError(message: "\(keyFile): not written") }
        let devices = try PushEmulator(clock: ContinuousClock())
        await devices.startAccepting()
        let emulator = try ProviderEmulatorServer(
            identity: try TLSServerIdentity.ephemeral(), teamID: teamID,
            apnsKeys: [try key.publicHalf().identified(as: keyID)], fcmAccount: nil, devices: devices)
        await emulator.start()
        let caFile = directory + "/provider-ca.pem"
        try Data(emulator.certificatePEM).write(to: URL(fileURLWithPath: caFile))
        return SharedPushService(devices: devices, emulator: emulator, keyFile: keyFile, caFile: caFile)
    }

    /// The provider flags of every gateway of the pair.
    var gatewayArguments: [String] {
        [
            "--apns-url", emulator.apnsSandboxURL, "--apns-production-url", emulator.apnsProductionURL,
            "--apns-key-file", keyFile, "--apns-key-id", Self.keyID, "--apns-team-id", Self.teamID,
            "--provider-ca-file", caFile,
        ]
    }

    var devicePort: UInt16 { devices.devicePort }

    func stop() async {
        await emulator.stop()
        await devices.stop()
    }
}

/// Two real astra-wakegw processes (`gw_a`, `gw_b`) on one PostgreSQL database behind the project's
/// Kamailio (dispatcher set 1, docs/wake-gateway.md "Two or more gateways"), pushing through one
/// ``SharedPushService``, sharing one dev JWT key, each naming the other as `--peer` so that an
/// ack reaching the wrong one is forwarded. A killed gateway is restarted on its own SIP and HTTP
/// ports, as systemd's `Restart=on-failure` would.
final class GatewayFailoverRig: Sendable {
    typealias Gateway = WakeGatewayResourceTests.Gateway
    static let ids = ["gw_a", "gw_b"]

    let server: KamailioServer
    let push: SharedPushService
    let auth: GatewayDevAuth
    /// The PostgreSQL URL (it holds a password: never printed).
    let state: String
    let sipPorts: [UInt16]
    let httpPorts: [UInt16]
    let settings: [String]
    /// The gateway now serving each slot (0 = gw_a, 1 = gw_b), and every process ever started
    /// with its slot (their events are read after a kill too).
    let current: Mutex<[Gateway]>
    let started: Mutex<[(slot: Int, gateway: Gateway)]>

    private init(
        server: KamailioServer, push: SharedPushService, auth: GatewayDevAuth, state: String, gateways: [Gateway],
        httpPorts: [UInt16], settings: [String]
    ) {
        self.server = server
        self.push = push
        self.auth = auth
        self.state = state
        sipPorts = gateways.map(\.sip.port)
        self.httpPorts = httpPorts
        self.settings = settings
        current = Mutex(gateways)
        started = Mutex(gateways.enumerated().map { ($0.offset, $0.element) })
    }

    /// The flags of slot `slot` (its HTTP port picked, so that the other can name it as a peer
    /// before either starts).
    static func arguments(
        _ slot: Int, state: String, httpPorts: [UInt16], auth: GatewayDevAuth, push: SharedPushService,
        settings: [String]
    ) -> [String] {
        let other = 1 - slot
        return [
            "--state", state, "--gateway-id", ids[slot], "--peer", "\(ids[other])=127.0.0.1:\(httpPorts[other])",
            "--http-port", String(httpPorts[slot]), "--jwt-hs256-secret-file", auth.secretFile,
            "--stats-interval-s", "0", "--heap-trim-interval-s", "0",
        ] + push.gatewayArguments + settings
    }

    /// Gateways first (told Kamailio's port before it binds, as ``KamailioPeer/WakeGatewayPairTests/Pair``),
    /// then Kamailio with both in its dispatcher list; on a taken port everything starts over.
    static func start(
        state: String, directory: String, gatewaySettings: [String], kamailioSettings: [String: String]
    ) async throws -> GatewayFailoverRig {
        let push = try await SharedPushService.start(in: directory)
        let auth = try GatewayDevAuth.create(in: directory)
        var lastError: any Error = KamailioError(message: "no attempt")
        for _ in 0..<5 {
            let base = TestPorts.random(alignment: 4, span: 4)
            let kamailio = SocketAddress(ip: "127.0.0.1", port: base)!
            let httpPorts = [TestPorts.random(), TestPorts.random()]
            var gateways: [Gateway] = []
            do {
                for slot in 0..<2 {
                    let arguments = Self.arguments(
                        slot, state: state, httpPorts: httpPorts, auth: auth, push: push, settings: gatewaySettings)
                    gateways.append(try await Gateway.start(kamailio: kamailio, arguments))
                }
                let list = gateways.map { "127.0.0.1:\($0.sip.port)" }.joined(separator: ",")
                let server = try KamailioServer.start(wakeGateway: list, settings: kamailioSettings, base: base)
                return GatewayFailoverRig(
                    server: server, push: push, auth: auth, state: state, gateways: gateways, httpPorts: httpPorts,
                    settings: gatewaySettings)
            } catch {
                lastError = error  // a port was taken: elsewhere
                for gateway in gateways { await gateway.stop() }
            }
        }
        await push.stop()
        throw lastError
    }

    func gateway(_ slot: Int) -> Gateway { current.withLock { $0[slot] } }

    /// SIGKILL: no drain, no answer to anyone; the kernel closes its sockets.
    func kill(_ slot: Int) async {
        let gateway = gateway(slot)
        gateway.process.signal(SIGKILL)
        _ = await gateway.process.exitStatus(within: .seconds(10))
    }

    /// A new process in `slot` on the killed one's SIP and HTTP ports (Kamailio's list and the
    /// other gateway's `--peer` name them), on the same database.
    func restart(_ slot: Int) async throws -> Gateway {
        let kamailio = SocketAddress(ip: "127.0.0.1", port: server.sipPort)!
        let arguments =
            Self.arguments(slot, state: state, httpPorts: httpPorts, auth: auth, push: push, settings: settings)
            + ["--sip", "127.0.0.1:\(sipPorts[slot])"]
        let gateway = try await Gateway.start(kamailio: kamailio, arguments)
        current.withLock { $0[slot] = gateway }
        started.withLock { $0.append((slot, gateway)) }
        return gateway
    }

    var kamailioLog: String {
        (try? String(contentsOfFile: server.runDir + "/kamailio.log", encoding: .utf8)) ?? ""
    }

    func stop() async {
        if let keep = ProcessInfo.processInfo.environment["ASTRA_HA_KEEP_LOGS"] {
            for (n, started) in started.withLock({ $0 }).enumerated() {
                try? FileManager.default.copyItem(
                    atPath: started.gateway.process.stdoutPath, toPath: "\(keep)/\(Self.ids[started.slot])-\(n).out")
            }
            try? FileManager.default.copyItem(atPath: server.runDir + "/kamailio.log", toPath: keep + "/kamailio.log")
        }
        for (_, gateway) in started.withLock({ $0 }) { await gateway.stop() }
        server.stop()
        await push.stop()
    }
}

/// Which gateway process held which call, and when the test first saw it (`call_held` read from
/// each process's stdout as it grows, every 10 ms, on the run's timeline): a killed process's
/// lines stay readable, so a call is attributed to the process that really held it.
final class HeldCallWatcher: Sendable {
    struct Held: Sendable {
        /// Index into ``GatewayFailoverRig/started`` (0 and 1 the first pair, 2… restarts).
        var process: Int
        var t: Int64
    }

    private let seen = Mutex<[String: [Held]]>([:])
    private let task = Mutex<Task<Void, Never>?>(nil)

    /// Every holding of `callID`, in the order seen.
    func held(_ callID: String) -> [Held] { seen.withLock { $0[callID] ?? [] } }
    var all: [String: [Held]] { seen.withLock { $0 } }

    func start(_ rig: GatewayFailoverRig, timeline: LiveTimeline) {
        let reader = Task {
                var offsets: [Int: UInt64] = [:]
                var partial: [Int: [UInt8]] = [:]
                while !Task.isCancelled {
                    let processes = rig.started.withLock { $0.map(\.gateway.process.stdoutPath) }
                    for (index, path) in processes.enumerated() {
                        guard let handle = FileHandle(forReadingAtPath: path) else { continue }
                        try? handle.seek(toOffset: offsets[index] ?? 0)
                        let data = (try? handle.readToEnd()) ?? Data()
                        try? handle.close()
                        guard !data.isEmpty else { continue }
                        offsets[index, default: 0] += UInt64(data.count)
                        var bytes = partial[index, default: []] + Array(data)
                        let now = timeline.now
                        while let newline = bytes.firstIndex(of: 10) {
                            let line = String(decoding: bytes[..<newline], as: UTF8.self)
                            bytes.removeFirst(newline + 1)
                            guard line.contains(#""event":"call_held""#),
                                let callID = CallToolHarness.field("call_id", in: line)
                            else { continue }
                            self.record(callID, Held(process: index, t: now))
                        }
                        partial[index] = bytes
                    }
                    try? await Task.sleep(for: .milliseconds(10))
                }
        }
        task.withLock { $0 = reader }
    }

    private func record(_ callID: String, _ held: Held) { seen.withLock { $0[callID, default: []].append(held) } }

    func stop() { task.withLock { $0?.cancel() } }
}

import Glibc

/// The peers of a live run when the tool starts them itself: a Kamailio from
/// scripts/kamailio.sh on its own random ports with `KAMAILIO_WAKE_GATEWAY` set, and an
/// `astra-wakegw` process beside it. ``stop()`` ends both (and Kamailio also dies with us:
/// `KAMAILIO_OWNER_PID`).
public final class LiveInfrastructure: Sendable {
    /// Where everything listens.
    public let environment: LiveEnvironment
    let gateway: ChildProcess
    let kamailioScript: String
    let kamailioEnv: [String: String]
    let runDir: String

    /// Gateway settings the tool passes on.
    public struct GatewaySettings: Sendable {
        public var ackWindowMs: Int64 = 2_000
        public var apnsDelayMs: Int64 = 0
        public var qualifyTimeoutMs: Int64 = 500
        public var registerWaitMs: Int64 = 6_000
        /// `--gone-notice`: announce a caller who left after the ack (INVITE + CANCEL).
        public var goneNotice = false
        /// More astra-wakegw flags (e.g. the soak's push cap and stats interval).
        public var extraArguments: [String] = []
        /// `--state`: nil is durable SQLite state private to the run (the production default, in
        /// a place no other gateway uses); the soak bench also runs `memory` beside it.
        public var state: String?
        /// `--sealed required`: every registration must bring a device key, grant and call key,
        /// and every push is sealed.
        public var sealed = false
        /// `--provider-capture FILE`: the gateway writes every provider request it makes there.
        public var providerCapture: String?
        public init() {}
    }

    /// Starts Kamailio and the gateway. `wakegw` is the astra-wakegw binary, `kamailioScript`
    /// scripts/kamailio.sh.
    public static func start(wakegw: String, kamailioScript: String, settings: GatewaySettings) async throws(LiveError)
        -> LiveInfrastructure
    {
        guard access(wakegw, X_OK) == 0 else { throw LiveError(.infrastructure, "\(wakegw): not an executable") }
        guard access(kamailioScript, R_OK) == 0 else {
            throw LiveError(.infrastructure, "\(kamailioScript): not found")
        }
        var lastError = ""
        for _ in 0..<6 {
            let base = UInt16.random(in: 20_000...58_000) / 8 * 8
            let (sip, tls, ws, wss) = (base, base + 1, base + 2, base + 3)
            let (gatewaySIP, http, apns) = (base + 4, base + 5, base + 6)
            let runDir = "/tmp/astra-pushsim-live-\(base)-\(getpid())"
            var env = currentEnvironment()
            env["KAMAILIO_SIP_PORT"] = String(sip)
            env["KAMAILIO_TLS_PORT"] = String(tls)
            env["KAMAILIO_WS_PORT"] = String(ws)
            env["KAMAILIO_WSS_PORT"] = String(wss)
            env["KAMAILIO_RUN_DIR"] = runDir
            env["KAMAILIO_OWNER_PID"] = String(getpid())
            env["KAMAILIO_WAKE_GATEWAY"] = "127.0.0.1:\(gatewaySIP)"
            let (status, output) = try ChildProcess.run(
                ["/bin/bash", kamailioScript, "start"], environment: env, logPath: runDir + ".start.out")
            unlink(runDir + ".start.out")
            guard status == 0 else {
                lastError = output
                _ = try? ChildProcess.run(
                    ["/bin/bash", kamailioScript, "stop"], environment: env, logPath: "/dev/null")
                continue
            }
            let gateway: ChildProcess
            let auth: GatewayDevAuth
            do {
                auth = try GatewayDevAuth.create(in: runDir)
                gateway = try ChildProcess(
                    [
                        wakegw, "--sip", "127.0.0.1:\(gatewaySIP)", "--kamailio", "127.0.0.1:\(sip)",
                        "--http-port", String(http), "--apns-device-port", String(apns),
                        "--ack-window-ms", String(settings.ackWindowMs), "--apns-delay-ms",
                        String(settings.apnsDelayMs),
                        "--qualify-timeout-ms", String(settings.qualifyTimeoutMs),
                        "--register-wait-ms", String(settings.registerWaitMs), "--json",
                        "--jwt-hs256-secret-file", auth.secretFile,
                        // The provider emulator's HTTP/2 listeners: any free ports (the gateway
                        // pushes to its own emulator; the listening event names them).
                        "--apns-emulator-port", "0", "--apns-emulator-production-port", "0", "--fcm-emulator-port", "0",
                        "--state", settings.state ?? "sqlite:" + runDir + "/wakegw.sqlite3",
                    ] + (settings.goneNotice ? ["--gone-notice"] : [])
                        + (settings.sealed ? ["--sealed", "required"] : [])
                        + (settings.providerCapture.map { ["--provider-capture", $0] } ?? []) + settings.extraArguments,
                    environment: currentEnvironment(),
                    logPath: runDir + "/wakegw.log")
            } catch {
                _ = try? ChildProcess.run(
                    ["/bin/bash", kamailioScript, "stop"], environment: env, logPath: "/dev/null")
                throw error
            }
            var environment = LiveEnvironment()
            environment.sipPort = sip
            environment.wssPort = wss
            environment.caFile = runDir + "/ca.crt"
            environment.httpPort = http
            environment.apnsDevicePort = apns
            environment.ackWindowMs = settings.ackWindowMs
            environment.apnsDelayMs = settings.apnsDelayMs
            environment.qualifyTimeoutMs = settings.qualifyTimeoutMs
            environment.gatewayAuth = auth
            environment.sealed = settings.sealed
            let infrastructure = LiveInfrastructure(
                environment: environment, gateway: gateway, kamailioScript: kamailioScript, kamailioEnv: env,
                runDir: runDir)
            if await infrastructure.waitForGateway() { return infrastructure }
            lastError = "astra-wakegw did not come up: " + ChildProcess.readFile(runDir + "/wakegw.log")
            infrastructure.stop()
        }
        throw LiveError(.infrastructure, "could not start Kamailio + astra-wakegw: \(lastError)")
    }

    init(
        environment: LiveEnvironment, gateway: ChildProcess, kamailioScript: String, kamailioEnv: [String: String],
        runDir: String
    ) {
        self.environment = environment
        self.gateway = gateway
        self.kamailioScript = kamailioScript
        self.kamailioEnv = kamailioEnv
        self.runDir = runDir
    }

    /// Polls the gateway's HTTP port until it answers (5 s).
    func waitForGateway() async -> Bool {
        let client = GatewayClient(port: environment.httpPort, timeoutMs: 300)
        for _ in 0..<100 {
            guard gateway.isRunning else { return false }
            if (try? await client.request("GET", "/api/v1/users/voip-push-status?asterisk_endpoint=probe")) != nil {
                return true
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    /// The astra-wakegw process id (its RSS is read from /proc by the soak benchmark).
    public var gatewayPID: Int32 { gateway.pid }

    /// The gateway's event log (JSON Lines).
    public var gatewayLog: String { ChildProcess.readFile(runDir + "/wakegw.log") }

    /// Stops the gateway and Kamailio, removes the run dir (unless ASTRA_KEEP_KAMAILIO_RUN is set).
    public func stop() {
        gateway.stop()
        _ = try? ChildProcess.run(
            ["/bin/bash", kamailioScript, "stop"], environment: kamailioEnv, logPath: "/dev/null")
        if getenv("ASTRA_KEEP_KAMAILIO_RUN") == nil {
            _ = try? ChildProcess.run(["/bin/rm", "-rf", runDir], environment: [:], logPath: "/dev/null")
        }
    }
}

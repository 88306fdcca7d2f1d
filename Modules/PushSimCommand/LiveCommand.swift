import Glibc
import PushKitEmu
import PushKitLive

/// `astra-pushsim live SCENARIO`: one live scenario end to end (docs/pushkit-emulator.md,
/// "Live mode"), independent of argument parsing.
package enum LiveCommand {
    /// The options of `live`, already parsed.
    public struct Options: Sendable {
        public var policy: PolicyChoice = .correct
        public var format: PushSimCommand.Format = .json
        /// Gateway settings when the tool starts the gateway.
        public var gateway = LiveInfrastructure.GatewaySettings()
        /// `astra-wakegw` binary (default: beside astra-pushsim).
        public var wakegw: String?
        /// scripts/kamailio.sh (default: found from the binary's or the current directory).
        public var kamailioScript: String?
        /// Peers already running: skip starting Kamailio and the gateway.
        public var external: LiveEnvironment?
        /// RFC 8599 mode.
        public var rfc8599 = false
        /// `--platform`: an iOS or an Android phone.
        public var platform: DevicePlatform = .ios
        /// `--sealed`: sealed pushes end to end (the gateway's `--sealed required`).
        public var sealed = false
        /// `--seal-fault`: what happens to the phone's copy of each sealed push.
        public var sealFault: SealFault = .none
        public var sipTrace = false
        public var phoneUser: String?
        public var callerUser: String?
        /// `--delivery field`: APNs delay, loss and cold launch drawn from the field model.
        public var delivery: DeliveryModel = .ideal
        /// `--apns-delay`, `--cold-launch`, `--loss-percent`.
        public var overrides = DeliveryOverrides()
        /// `--seed`: the delivery model's draws.
        public var seed: UInt64 = 1
        /// `--client-cmd`: the app's code as a process iOS starts at each launch (default: this
        /// binary's `client --policy P`).
        public var clientCommand: String?
        /// `--client-timeout-ms`.
        public var clientTimeoutMs: Int64 = ClientSession.defaultTimeoutMs
        public init() {}
    }

    /// Exit status for infrastructure failures (TOOLS.md: 3 network/timeout).
    public static let exitInfrastructure: Int32 = 3

    /// Runs the command; `scenario` is the built-in name.
    public static func execute(scenario name: String?, options: Options) async -> PushSimOutput {
        guard let name else { return usage("live needs a SCENARIO (\(LiveScenarios.names.joined(separator: ", ")))") }
        let ack = options.external?.ackWindowMs ?? options.gateway.ackWindowMs
        guard var scenario = LiveScenarios.named(name, ackWindowMs: ack) else {
            return usage("unknown live scenario '\(name)' (\(LiveScenarios.names.joined(separator: ", ")))")
        }
        if options.sealed && options.rfc8599 { return usage("--sealed takes the token endpoint: not with --rfc8599") }
        if options.sealFault != .none {
            guard options.sealed else { return usage("--seal-fault needs --sealed") }
            guard LiveSealing.liveFaults.contains(options.sealFault) else {
                return usage("--seal-fault \(options.sealFault.rawValue): not in a live run")
            }
            scenario = scenario.withUntrustedSeals
        }
        // The app's code is a process iOS starts at each launch (none while the app is killed):
        // the user's --client-cmd, or this binary's `client` serving the chosen preset. Started
        // once here (hello) so an unusable command is a usage error before any peer starts.
        let command =
            options.clientCommand ?? (ShellWords.quoted(selfBinary()) + " client --policy " + options.policy.rawValue)
        let session: ClientSession
        do throws(ClientFault) {
            session = try ClientSession(command: command, timeoutMs: options.clientTimeoutMs, lifetime: .perLaunch)
        } catch {
            return usage("--client-cmd: \(error.detail)")
        }
        defer { session.close() }
        var infrastructure: LiveInfrastructure?
        var environment: LiveEnvironment
        if let external = options.external {
            environment = external
        } else {
            let wakegw = options.wakegw ?? siblingBinary("astra-wakegw")
            guard let script = options.kamailioScript ?? findKamailioScript() else {
                return failure("scripts/kamailio.sh not found: run from the repository or pass --kamailio-script")
            }
            var settings = options.gateway
            settings.goneNotice = settings.goneNotice || scenario.goneNotice  // as the virtual scenario's server
            do {
                infrastructure = try await LiveInfrastructure.start(
                    wakegw: wakegw, kamailioScript: script, settings: settings)
            } catch {
                return failure(error.description)
            }
            environment = infrastructure!.environment
        }
        environment.rfc8599 = options.rfc8599
        environment.platform = options.platform
        environment.sealed = options.sealed
        environment.sealFault = options.sealFault
        environment.sipTrace = options.sipTrace
        if let user = options.phoneUser { environment.phoneUser = user }
        if let user = options.callerUser { environment.callerUser = user }
        environment.delivery = options.delivery
        environment.deliveryOverrides = options.overrides
        environment.deliverySeed = options.seed
        let report = await LiveRunner.run(scenario, session: session, environment: environment)
        infrastructure?.stop()
        return render(report, format: options.format)
    }

    /// The timeline, then the verdict; exit 0 / 1 (violation or outcome) / 3 (infrastructure).
    public static func render(_ report: LiveReport, format: PushSimCommand.Format) -> PushSimOutput {
        var out = PushSimOutput()
        for (t, event) in report.timeline { out.stdout.append(PushSimCommand.render(event.jsonLine(t: t), format)) }
        out.stdout.append(PushSimCommand.render(report.verdictLine, format))
        if report.infrastructureError != nil && report.clientFailure == nil {
            out.exitCode = exitInfrastructure
            out.stderr.append(report.summary)
        } else if !report.passed {
            out.exitCode = PushSimCommand.exitViolation
            out.stderr.append(report.summary)
        }
        return out
    }

    static func usage(_ reason: String) -> PushSimOutput {
        PushSimOutput(stdout: [], stderr: [reason], exitCode: PushSimCommand.exitUsage)
    }

    static func failure(_ reason: String) -> PushSimOutput {
        PushSimOutput(stdout: [], stderr: [reason], exitCode: exitInfrastructure)
    }

    /// The running executable's path.
    static func selfBinary() -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return CommandLine.arguments[0] }
        return String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `name` in the directory of the running executable.
    static func siblingBinary(_ name: String) -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return name }
        let path = String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]) + "/" + name
    }

    /// scripts/kamailio.sh from the current directory or above the binary (.build/<config>/).
    static func findKamailioScript() -> String? {
        let binary = siblingBinary("")
        var candidates = ["scripts/kamailio.sh"]
        var dir = binary
        for _ in 0..<5 {
            if dir.hasSuffix("/") { dir.removeLast() }
            guard let slash = dir.lastIndex(of: "/") else { break }
            dir = String(dir[..<slash])
            candidates.append(dir + "/scripts/kamailio.sh")
        }
        return candidates.first { access($0, R_OK) == 0 }
    }
}

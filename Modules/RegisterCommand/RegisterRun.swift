import Capture
import SIPCore
import SIPDialog
import LineRunner
import SIPTransport
import ToolSupport

/// One line, one-shot or `--keep`: register, report, (wait for a qualify,) unregister.
/// Prints events as they happen and one `result` line at the end (docs/man/astra-register.md).
struct RegisterRun {
    struct Options {
        var keep = false
        var expectQualify = false
        var timeout: Duration = .seconds(10)
        /// Load mode: starts per second at most, the whole run's bound, and how long to keep going.
        var rate: Double?
        var runTimeout: Duration?
        var duration: Duration?
        /// `--storm` / `--fleet`: a connection per line (nil: the shared-flow load of D8/D13).
        var streamMode: LoadRun.StreamMode?
        /// `--keep-alive`: the fleet's keep-alive period (nil: none).
        var keepAlive: Duration? = .seconds(30)
        /// `--shard I/N`.
        var shard: LoadShard?
        var expires: Int?
        /// `--expires-policy MIN:MAX`: an explicit clamp of the requested expiry (nil: sent as asked).
        var expiresPolicy: ClosedRange<UInt32>?
        var nagios = false
        /// `-w`/`-c` on the registration time (seconds), with --nagios.
        var warning: MonitoringRange?
        var critical: MonitoringRange?
        /// `--sip-trace`, `--sip-trace-file`, `--pcap`, `--hep`.
        var capture: CaptureHub?
        var verbosity = 0
        var seed: UInt64?
        /// `--insecure`: no TLS certificate verification (a line's tls_verify false needs it).
        var insecure = false
    }

    let setup: LineSetup
    let options: Options
    let context: ToolContext

    /// What the run ended with.
    struct Outcome {
        var exit: ExitCode
        var message: String?
    }

    private enum Input: Sendable {
        case line(LineEvent)
        case deadline
        case signal(ToolSignal)
    }

    func run() async -> ExitCode {
        // A one-shot over UDP runs on this thread over the same pure machines (OneShotUDP).
        if OneShotUDP.applies(to: setup, options) { return OneShotUDP(owner: self).run() }
        let clock = ContinuousClock()
        let start = WireTime.now()
        let ids: any IdentifierSource = options.seed.map { SeededIdentifierSource(seed: $0) } ?? SystemIdentifierSource()
        let wire = WireTimings()
        var connection = setup.connectionOptions(trace: options.capture?.sipTrace, verbosity: options.verbosity,
                                                 diagnostics: context.diagnostics)
        connection.trace = wire.trace(over: connection.trace)
        let flow = SIPFlow(target: setup.target, options: connection, clock: clock, ids: ids)
        var endpointSettings = EndpointSettings()
        endpointSettings.userAgent = AstraVersion.product("astra-register")
        let endpoint = SIPEndpoint(channel: flow, clock: clock, ids: ids, settings: endpointSettings)
        let settings = setup.registrationSettings(
            expires: options.expires, keep: options.keep, ids: ids, expiresPolicy: options.expiresPolicy)
        let client = RegistrationClient(
            aor: setup.aor, registrar: setup.registrar, displayName: setup.line.displayName,
            credentials: setup.credentials, settings: settings, ids: ids)
        let registration = LineRegistration(endpoint: endpoint, client: client, clock: clock)

        let (inputs, feed) = AsyncStream.makeStream(of: Input.self)
        let pumps = [
            Task { for await event in registration.events { feed.yield(.line(event)) } },
            Task {
                for await signal in await SignalEvents.stream() { feed.yield(.signal(signal)) }
            },
        ]
        var deadline: Task<Void, Never>? = Task {
            try? await clock.sleep(for: options.timeout)
            if !Task.isCancelled { feed.yield(.deadline) }
        }
        await registration.start()

        var report = RegisterReport(setup: setup, start: start, wire: wire)
        report.noteExpires(settings, diagnostics: context.diagnostics)
        var outcome: Outcome?
        for await input in inputs {
            switch input {
            case .line(let event):
                var connectedAt: WireTime?
                if case .flowUp = event { connectedAt = await flow.info?.connectedAt }
                report.note(event, connectedAt: connectedAt, output: eventOutput)
                outcome = decide(after: event, report: report)
                if outcome == nil, report.registered, options.keep || !options.expectQualify || report.qualified {
                    // In keep mode the deadline only covers the first registration.
                    deadline?.cancel()
                    deadline = nil
                }
            case .deadline:
                outcome = Outcome(exit: .network, message: "timeout after \(options.timeout) waiting for \(report.waitingFor)")
            case .signal(let signal):
                outcome = Outcome(exit: report.registered ? .success : .network,
                                  message: report.registered ? nil : "interrupted by \(signal) before registering")
            }
            if outcome != nil { break }
        }
        deadline?.cancel()
        // Unregister; wait for the answer only when a binding exists (a dead server must not
        // hold the tool), and say whether it was removed.
        await registration.stop(within: report.registered ? .seconds(3) : .zero)
        report.unregistered = report.registered ? (await registration.state == .stopped) : nil
        // The run's events ended with the loop: the removal is said here (an `unregistered`
        // event, as a `--keep` run watched with events expects after SIGINT).
        if report.unregistered == true { report.note(.registration(.unregistered), output: eventOutput) }
        for pump in pumps { pump.cancel() }
        report.finish()
        return conclude(report, outcome ?? Outcome(exit: .network, message: "flow ended"))
    }

    /// Where the run's events go: nowhere under --nagios, nor in text mode without -v, unless
    /// --keep (a person at a terminal gets one verdict line; one watching a line stay
    /// registered wants to see refreshes and losses).
    var eventOutput: EventWriter? {
        let quiet = options.nagios || (context.output.format == .text && options.verbosity == 0 && !options.keep)
        return quiet ? nil : context.output
    }

    /// The end of every one-shot run: the `result` object (or the Nagios line), the message on
    /// stderr, the exit code.
    func conclude(_ report: RegisterReport, _ final: Outcome) -> ExitCode {
        if options.nagios {
            let status = report.monitoringStatus(
                exit: final.exit, message: final.message, warning: options.warning, critical: options.critical,
                timeout: options.timeout)
            context.output.write(Redaction.redact(status.line) + "\n")
            return status.state.exitCode
        }
        if context.output.format == .text {
            // A person at a terminal: the verdict in words, the fix for a failure; no stderr repeat.
            context.output.write(report.verdict(exit: final.exit, message: final.message) + "\n")
            return final.exit
        }
        context.output.emit("result", report.result(exit: final.exit, message: final.message))
        // The JSON keeps the machine text; the one stderr line is for a person.
        if let message = final.message { context.diagnostics.error(FailureWords.explain(message, setup: setup)) }
        return final.exit
    }

    /// The one-shot decisions: registered (and qualified if asked) → done; failure → exit code.
    private func decide(after event: LineEvent, report: RegisterReport) -> Outcome? {
        switch event {
        case .registration(.failed(let failure)) where !options.keep:
            return Outcome(exit: Self.exitCode(for: failure), message: failure.description)
        case .flowDown(let error) where !report.registered && !options.keep:
            return Outcome(exit: error.exitCode, message: error.toolMessage)
        case .registration(.registered), .qualifyAnswered:
            if options.keep { return nil }
            if options.expectQualify && !report.qualified { return nil }
            return report.registered ? Outcome(exit: .success, message: nil) : nil
        default:
            return nil
        }
    }

    static func exitCode(for failure: RegistrationFailure) -> ExitCode {
        switch failure {
        case .timeout, .transportError: .network
        case .rejected, .authenticationFailed, .cannotAuthenticate, .invalidResponse: .failure
        }
    }

}

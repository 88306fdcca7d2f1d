// astra-wakegw's command: the push wake gateway beside Kamailio (docs/man/astra-wakegw.md,
// docs/wake-gateway.md); Tools/astra-wakegw/main.swift only calls it. ToolSupport parses and
// prints; WakeGatewayConfiguration(arguments:) maps the flags; WakeGateway.WakeGatewayServer
// does the work. This file wires the process: the state store, the stats and heap-trim timers,
// the signal, the drain.
import CLinux
import Glibc
import ToolSupport
import WakeGateway

/// The astra-wakegw command, as a library type so that the tool's main is one call
/// (docs/adr/0190-tool-commands-in-libraries.md).
public enum WakeGatewayCommand {
    /// Parses the process's command line, serves until SIGINT/SIGTERM, drains and exits with its code.
    public static func run() async -> Never {
        await ToolMain.run(ToolSpecs.wakegw) { context in
            try await serve(context)
        }
    }

    /// The gateway's run: exit 64 for a store or a flag to fix, 3 when a listener or the
    /// database cannot be had now, 0 after a drain.
    static func serve(_ context: ToolContext) async throws -> ExitCode {
        raiseDescriptorLimit()
        let configuration = try WakeGatewayConfiguration(arguments: context.arguments)
        let statsEvery = try WakeGatewayConfiguration.int(context.arguments, "stats-interval-s")
        let trimEvery = try WakeGatewayConfiguration.int(context.arguments, "heap-trim-interval-s")
        let drainMs = try WakeGatewayConfiguration.int(context.arguments, "drain-timeout-ms")
        let output = context.output
        let diagnostics = context.diagnostics
        // The state first: a file that cannot be used is the operator's to decide about (exit 64).
        let stateURL =
            context.arguments.string("state")
            ?? StateStores.defaultLocation(
                environment: getenv("STATE_DIRECTORY").map { ["STATE_DIRECTORY": String(cString: $0)] } ?? [:])
        let state: any StateStore
        do throws(StateStoreError) {
            state = try await StateStores.open(stateURL)
        } catch {
            diagnostics.error(error.message)
            // A store to fix (bad URL, corrupt or newer schema) is 64; a database down now is 3.
            return error.kind == .refused ? .usage : .network
        }
        if state.location == "memory" {
            diagnostics.warning("--state memory: push registrations last only as long as this process (sqlite:PATH keeps them)")
        }
        let gateway: WakeGatewayServer<ContinuousClock>
        do {
            gateway = try WakeGatewayServer(
                configuration: configuration, clock: ContinuousClock(), state: state,
                emit: { event in output.emit(event.name, event.fields) }, log: { line in diagnostics.info(line) })
            _ = try await gateway.start()
        } catch {
            diagnostics.error("\(error)")
            return .network
        }
        let stats = Task {
            while statsEvery > 0, !Task.isCancelled {
                try? await Task.sleep(for: .seconds(statsEvery))
                if Task.isCancelled { return }
                let event = await gateway.statsEvent()
                output.emit(event.name, HeapTrims.shared.stats(event))
            }
        }
        let trim = Task {
            while trimEvery > 0, !Task.isCancelled {
                try? await Task.sleep(for: .seconds(trimEvery))
                if Task.isCancelled { return }
                HeapTrims.shared.trim()
            }
        }
        let signals = await SignalEvents.stream()
        for await signal in signals {
            diagnostics.info("\(signal): draining, then stopping")
            break
        }
        stats.cancel()
        trim.cancel()
        // The last stats line is what was open when the signal came: taken after the drain it would
        // show every connection closed by stop() and hide what the gateway was carrying.
        let last = await gateway.statsEvent()
        output.emit(last.name, HeapTrims.shared.stats(last))
        // Drain: no new calls, the held ones finish (or are answered 503 at the deadline), then stop.
        let left = await gateway.drain(within: .milliseconds(drainMs))
        output.emit("stopped", ["held_at_deadline": .int(Int64(left))])
        return .success
    }

    /// Every connection is a descriptor: lift the soft limit to the hard one (the caps decide).
    static func raiseDescriptorLimit() {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
    }
}

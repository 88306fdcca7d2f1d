// astra-wakegw — the push wake gateway beside Kamailio (docs/man/astra-wakegw.md, docs/wake-gateway.md).
// Thin main: ToolSupport parses and prints; WakeGateway.WakeGatewayServer does the work.
import AstraJSON
import Glibc
import ToolSupport
import WakeGateway

/// Every connection is a descriptor: lift the soft limit to the hard one (the caps decide).
func raiseDescriptorLimit() {
    var limit = rlimit()
    guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
    limit.rlim_cur = limit.rlim_max
    _ = setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
}

await ToolMain.run(ToolSpecs.wakegw) { context in
    raiseDescriptorLimit()
    let configuration = try WakeGatewayConfiguration(arguments: context.arguments)
    let statsEvery = try WakeGatewayConfiguration.int(context.arguments, "stats-interval-s")
    let output = context.output
    let diagnostics = context.diagnostics
    let gateway: WakeGatewayServer<ContinuousClock>
    do {
        gateway = try WakeGatewayServer(
            configuration: configuration, clock: ContinuousClock(),
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
            output.emit(event.name, event.fields)
        }
    }
    let signals = await SignalEvents.stream()
    for await signal in signals {
        diagnostics.info("\(signal): stopping")
        break
    }
    stats.cancel()
    let last = await gateway.statsEvent()
    output.emit(last.name, last.fields)
    await gateway.stop()
    output.emit("stopped")
    return .success
}

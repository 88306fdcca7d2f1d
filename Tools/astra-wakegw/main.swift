// astra-wakegw — the push wake gateway beside Kamailio (docs/man/astra-wakegw.md, docs/wake-gateway.md).
// Thin main: ToolSupport parses and prints; WakeGateway.WakeGatewayServer does the work.
import AstraJSON
import CLinux
import Glibc
import Synchronization
import ToolSupport
import WakeGateway

/// Every connection is a descriptor: lift the soft limit to the hard one (the caps decide).
func raiseDescriptorLimit() {
    var limit = rlimit()
    guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
    limit.rlim_cur = limit.rlim_max
    _ = setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
}

/// The heap trims since the last `stats` event: how many, and the longest in microseconds (a trim
/// holds each malloc arena's lock while it walks it, so its cost is printed, not assumed).
let heapTrims = Mutex<(count: Int64, maxMicros: Int64)>((0, 0))

/// A `stats` event with the heap trims since the previous one (`heap_trims`, `heap_trim_max_us`).
func statsWithTrims(_ event: WakeEvent) -> JSONObject {
    var fields = event.fields
    let trims = heapTrims.withLock { value in
        defer { value = (0, 0) }
        return value
    }
    fields.append("heap_trims", .int(trims.count))
    fields.append("heap_trim_max_us", .int(trims.maxMicros))
    return fields
}

await ToolMain.run(ToolSpecs.wakegw) { context in
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
            output.emit(event.name, statsWithTrims(event))
        }
    }
    // Freed pages go back to the system on a timer: connections and calls are served on pool
    // threads, each with its own malloc arena, and free() gives back only the top of a heap,
    // so without this RSS creeps up in steps while the heap in use stays flat (docs/decisions.md D44).
    let trim = Task {
        while trimEvery > 0, !Task.isCancelled {
            try? await Task.sleep(for: .seconds(trimEvery))
            if Task.isCancelled { return }
            let started = ContinuousClock.now
            _ = astra_heap_trim()
            let took = ContinuousClock.now - started
            let micros = took.components.seconds * 1_000_000 + took.components.attoseconds / 1_000_000_000_000
            heapTrims.withLock { $0 = ($0.count + 1, max($0.maxMicros, micros)) }
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
    output.emit(last.name, statsWithTrims(last))
    // Drain: no new calls, the held ones finish (or are answered 503 at the deadline), then stop.
    let left = await gateway.drain(within: .milliseconds(drainMs))
    output.emit("stopped", ["held_at_deadline": .int(Int64(left))])
    return .success
}

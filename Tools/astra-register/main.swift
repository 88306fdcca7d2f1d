// astra-register — verify a SIP line: register, report, unregister (docs/man/astra-register.md).
// Thin main: ToolSupport parses; LineSetup/RegisterRun/LoadRun do the work over SIPDialog.
import Capture
import SIPDialog
import LineRunner
import ToolSupport

await ToolMain.run(ToolSpecs.register) { context in
    let arguments = context.arguments
    var options = RegisterRun.Options()
    options.keep = arguments.flag("keep")
    options.expectQualify = arguments.flag("expect-qualify")
    options.timeout = arguments.duration("timeout") ?? .seconds(10)
    options.expires = arguments.int("expires")
    options.nagios = arguments.flag("nagios")
    for (key, short) in [("warning", "w"), ("critical", "c")] {
        guard let text = arguments.string(key) else { continue }
        guard options.nagios else { throw ToolError(.usage, "-\(short)/--\(key) needs --nagios") }
        guard let range = MonitoringRange(text) else {
            throw ToolError(
                .usage, "option -\(short): '\(text)' is not a range of seconds (10, 10:, ~:10, 10:20 or @10:20)")
        }
        if key == "warning" { options.warning = range } else { options.critical = range }
    }
    options.capture = try await CaptureHub.make(context)
    options.verbosity = arguments.count("verbose")
    options.seed = arguments.int(CommonOptions.Key.seed).map { UInt64(truncatingIfNeeded: $0) }
    options.rate = arguments.double("rate")
    options.runTimeout = arguments.duration("run-timeout")
    options.duration = arguments.duration("duration")
    if let monitor = arguments.string("monitor") {
        for other in ["load", "merge", "shard"] where arguments.string(other) != nil {
            throw ToolError(.usage, "--monitor runs its own lines: not with --\(other)")
        }
        for other in ["keep", "nagios", "storm", "fleet", "expect-qualify"] where arguments.flag(other) {
            throw ToolError(.usage, "--monitor runs its own lines: not with --\(other)")
        }
        let listen = try MonitorRun.parseListen(arguments.string("metrics") ?? "127.0.0.1:9779")
        let settings = LineHealth.Settings(
            pingInterval: arguments.duration("ping-interval") ?? .seconds(30), pingTimeout: options.timeout)
        return await MonitorRun(path: monitor, listen: listen, settings: settings, context: context).run()
    }
    if let merge = arguments.string("merge") {
        if arguments.string("load") != nil { throw ToolError(.usage, "--merge combines finished runs; not with --load") }
        return LoadMerge(path: merge, context: context).run()
    }
    let storm = arguments.flag("storm"), fleet = arguments.flag("fleet")
    if storm && fleet { throw ToolError(.usage, "--storm and --fleet are two different runs: pick one") }
    if storm || fleet || arguments.string("shard") != nil, arguments.string("load") == nil {
        throw ToolError(.usage, "--storm, --fleet and --shard need --load FILE")
    }
    options.streamMode = storm ? .storm : (fleet ? .fleet : nil)
    if let keepAlive = arguments.duration("keep-alive") { options.keepAlive = keepAlive }
    if let shard = arguments.string("shard") { options.shard = try LoadShard(parsing: shard) }
    if let load = arguments.string("load") {
        if options.nagios { throw ToolError(.usage, "--nagios checks one line, not --load") }
        let concurrency = arguments.int("concurrency") ?? 10  // 1…10000 (the spec's range)
        return await LoadRun(path: load, concurrency: concurrency, options: options, context: context).run()
    }
    let line = try LineOptions.resolve(arguments)
    return await RegisterRun(setup: try LineSetup(line: line), options: options, context: context).run()
}

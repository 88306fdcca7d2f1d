// astra-register's command: verify a SIP line (register, report, unregister), monitor lines,
// or run a load (docs/man/astra-register.md). Tools/astra-register/main.swift only calls it.
// ToolSupport parses; LineSetup/RegisterRun/LoadRun do the work over SIPDialog.
import CLinux
import Capture
import Glibc
import LineRunner
import SIPDialog
import ToolSupport

/// The astra-register command, as a library type so that the tool's main is two lines
/// (docs/adr/0190-tool-commands-in-libraries.md).
///
/// A one-shot over UDP (the monitoring path) runs in ``init()``, on the main thread, before Swift
/// concurrency starts: no cooperative-pool or Dispatch threads for a process that lives a few
/// milliseconds (docs/adr/0105-one-shot-before-concurrency.md). Everything else runs in ``run()``.
public struct RegisterCommand: Sendable {
    private let start: ToolMain.Start
    /// A line read (from standard input, maybe) by the synchronous path that turned out not to be
    /// a one-shot over UDP: the async path takes it as it is rather than reading again.
    private let prepared: (options: RegisterRun.Options, setup: LineSetup)?

    /// Parses the command line; a one-shot over UDP (and `--help`, `--version`, a usage error)
    /// finishes here and exits the process with its code.
    public init() {
        let start = ToolMain.start(ToolSpecs.register)
        var prepared: (options: RegisterRun.Options, setup: LineSetup)?
        let oneShot = ToolMain.finishSynchronously(start) { context -> ExitCode? in
            let arguments = context.arguments
            // A monitor holds every line's stack for days on four pool threads: one malloc
            // arena, chosen here while no other thread exists (docs/adr/0212-monitor-one-malloc-arena.md).
            if arguments.string("monitor") != nil { _ = astra_heap_single_arena() }
            for key in ["load", "merge", "shard", "monitor"] where arguments.string(key) != nil { return nil }
            if arguments.flag("storm") || arguments.flag("fleet") || CaptureHub.isRequested(arguments) { return nil }
            let options = try Self.registerOptions(arguments)
            let setup = try LineSetup(line: try LineOptions.resolve(arguments), insecure: options.insecure)
            guard OneShotUDP.applies(to: setup, options) else {
                prepared = (options, setup)
                return nil
            }
            return OneShotUDP(owner: RegisterRun(setup: setup, options: options, context: context)).run()
        }
        if let oneShot { exit(oneShot.rawValue) }
        self.start = start
        self.prepared = prepared
    }

    /// Runs every other mode (register over a stream, monitor, load, merge) and exits with its code.
    public func run() async -> Never {
        let handed = prepared
        let code = await ToolMain.finish(start) { context in
            let arguments = context.arguments
            if let handed {
                return await RegisterRun(setup: handed.setup, options: handed.options, context: context).run()
            }
            var options = try Self.registerOptions(arguments)
            options.capture = try await CaptureHub.make(context)
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
                return await MonitorRun(
                    path: monitor, listen: listen, settings: settings, context: context, insecure: options.insecure
                ).run()
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
            return await RegisterRun(
                setup: try LineSetup(line: line, insecure: options.insecure), options: options, context: context
            ).run()
        }
        exit(code.rawValue)
    }

    /// The options every run shares (the capture hub aside: it may resolve a HEP host).
    static func registerOptions(_ arguments: ParsedArguments) throws(ToolError) -> RegisterRun.Options {
        var options = RegisterRun.Options()
        options.keep = arguments.flag("keep")
        options.expectQualify = arguments.flag("expect-qualify")
        options.timeout = arguments.duration("timeout") ?? .seconds(10)
        options.expires = arguments.int("expires")
        if let policy = arguments.string("expires-policy") { options.expiresPolicy = try Self.parseExpiresPolicy(policy) }
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
        options.verbosity = arguments.count("verbose")
        options.seed = arguments.int(CommonOptions.Key.seed).map { UInt64(truncatingIfNeeded: $0) }
        options.rate = arguments.double("rate")
        options.runTimeout = arguments.duration("run-timeout")
        options.duration = arguments.duration("duration")
        options.insecure = arguments.flag(CommonOptions.Key.insecure)
        return options
    }

    /// `--expires-policy MIN:MAX`: 1 ≤ MIN ≤ MAX ≤ 2147483647 seconds.
    static func parseExpiresPolicy(_ text: String) throws(ToolError) -> ClosedRange<UInt32> {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let low = UInt32(parts[0]), let high = UInt32(parts[1]),
              low >= 1, low <= high, high <= UInt32(Int32.max) else {
            throw ToolError(.usage, "option --expires-policy: '\(text)' is not MIN:MAX seconds (1 ≤ MIN ≤ MAX, e.g. 30:300)")
        }
        return low...high
    }
}

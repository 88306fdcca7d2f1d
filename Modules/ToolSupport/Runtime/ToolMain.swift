#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

import SIPCore

/// The entry point of every tool: parse, handle `--help`/`--version`/`--generate-manual`/
/// `--generate-completion`, run the body, map any error to one `<tool>: <message>` line on stderr and the documented exit code.
///
/// ```swift
/// // Modules/QRCommand/QRCommand.swift, called by Tools/astra-qr/main.swift
/// import ToolSupport
/// await ToolMain.run(ToolSpecs.qr) { context in
/// }
/// ```
public enum ToolMain {
    /// The body of a tool: returns the exit code of an expected outcome, throws for errors.
    public typealias Body = @Sendable (ToolContext) async throws -> ExitCode

    /// Runs the tool with the process's arguments and exits with the resulting code.
    public static func run(
        _ spec: CommandSpec, arguments: [String] = Array(CommandLine.arguments.dropFirst()), _ body: Body
    ) async -> Never {
        let code = await execute(spec, arguments: arguments, body)
        exit(code.rawValue)
    }

    /// A parsed command line: either done already (help, version, a usage error: its exit
    /// code) or ready to run with its context.
    public enum Start: Sendable {
        case exit(ExitCode)
        case run(ToolContext, plugin: MonitoringPlugin?, stdout: any OutputSink)
    }

    /// Parses the command line and handles `--help`/`--version`/`--generate-*` and usage
    /// errors; synchronous, so a tool can decide before any Swift concurrency starts whether
    /// its run needs it at all (``finishSynchronously(_:_:)``).
    public static func start(
        _ spec: CommandSpec, arguments: [String] = Array(CommandLine.arguments.dropFirst()),
        stdout: any OutputSink = FileDescriptorSink.standardOutput,
        stderr: any OutputSink = FileDescriptorSink.standardError
    ) -> Start {
        let plain = Diagnostics(tool: spec.name, sink: stderr)
        // A monitoring plugin run (`--nagios`): errors become one status line on stdout.
        let plugin = spec.monitoring.flatMap { $0.isRequested(in: arguments) ? $0 : nil }
        let outcome: ParseOutcome
        do {
            outcome = try CommandLineParser(spec).parse(arguments)
        } catch {
            if let plugin { return .exit(report(plugin.status(for: error), stdout)) }
            plain.error(error.message)
            return .exit(error.exitCode)
        }
        switch outcome {
        case .help(let path):
            stdout.write(HelpFormatter().help(for: spec, path: path))
        case .version:
            stdout.write("\(spec.name) \(AstraVersion.current)\n")
        case .manual(.troff):
            stdout.write(ManualFormatter().manual(for: spec))
        case .manual(.markdown):
            stdout.write(MarkdownFormatter().markdown(for: spec))
        case .completion(let shell):
            stdout.write(CompletionFormatter().completion(for: spec, shell: shell))
        case .run(let parsed):
            let diagnostics = Diagnostics(
                tool: spec.name, level: Diagnostics.Level(verbosity: parsed.count(CommonOptions.Key.verbose)),
                sipTrace: parsed.flag(CommonOptions.Key.sipTrace), sink: stderr)
            let format = OutputFormat.resolve(parsed, stdoutIsTerminal: stdout.isTerminal)
            let context = ToolContext(
                tool: spec.name, arguments: parsed, output: EventWriter(format: format, sink: stdout),
                diagnostics: diagnostics)
            return .run(context, plugin: plugin, stdout: stdout)
        }
        return .exit(.success)
    }

    /// Runs the tool and returns its exit code, writing to `stdout`/`stderr` (injectable for tests).
    public static func execute(
        _ spec: CommandSpec, arguments: [String], stdout: any OutputSink = FileDescriptorSink.standardOutput,
        stderr: any OutputSink = FileDescriptorSink.standardError, _ body: Body
    ) async -> ExitCode {
        await finish(start(spec, arguments: arguments, stdout: stdout, stderr: stderr), body)
    }

    /// Runs the body of a started tool; errors become the `<tool>: <message>` line.
    public static func finish(_ start: Start, _ body: Body) async -> ExitCode {
        guard case .run(let context, let plugin, let stdout) = start else {
            if case .exit(let code) = start { return code }
            return .software
        }
        do {
            return try await body(context)
        } catch {
            return failed(error, context: context, plugin: plugin, stdout: stdout)
        }
    }

    /// Runs a synchronous body on the calling thread — a run that needs no task, actor or timer
    /// of Swift concurrency (a one-shot over UDP) then starts none of its threads — or returns
    /// nil, having done nothing, when `body` declines (returns nil) for the async path.
    public static func finishSynchronously(_ start: Start, _ body: (ToolContext) throws -> ExitCode?) -> ExitCode? {
        guard case .run(let context, let plugin, let stdout) = start else {
            if case .exit(let code) = start { return code }
            return .software
        }
        do {
            return try body(context)
        } catch {
            return failed(error, context: context, plugin: plugin, stdout: stdout)
        }
    }

    /// The one mapping of a body's error: the Nagios line, or the diagnostic and its exit code.
    private static func failed(_ error: any Error, context: ToolContext, plugin: MonitoringPlugin?,
                               stdout: any OutputSink) -> ExitCode {
        let mapped = ToolError(mapping: error)
        let diagnostics = context.diagnostics
        if let plugin {
            diagnostics.debug("error raised at \(mapped.file):\(mapped.line)")
            return report(plugin.status(for: mapped), stdout)
        }
        diagnostics.error(mapped.message)
        diagnostics.debug("error raised at \(mapped.file):\(mapped.line)")
        return mapped.exitCode
    }

    /// Writes a monitoring status line (redacted, like every diagnostic) and returns its exit code.
    private static func report(_ status: MonitoringStatus, _ stdout: any OutputSink) -> ExitCode {
        stdout.write(Redaction.redact(status.line) + "\n")
        return status.state.exitCode
    }
}

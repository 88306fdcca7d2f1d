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
/// // Tools/astra-qr/main.swift
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

    /// Runs the tool and returns its exit code, writing to `stdout`/`stderr` (injectable for tests).
    public static func execute(
        _ spec: CommandSpec, arguments: [String], stdout: any OutputSink = FileDescriptorSink.standardOutput,
        stderr: any OutputSink = FileDescriptorSink.standardError, _ body: Body
    ) async -> ExitCode {
        let plain = Diagnostics(tool: spec.name, sink: stderr)
        // A monitoring plugin run (`--nagios`): errors become one status line on stdout.
        let plugin = spec.monitoring.flatMap { $0.isRequested(in: arguments) ? $0 : nil }
        let outcome: ParseOutcome
        do {
            outcome = try CommandLineParser(spec).parse(arguments)
        } catch {
            if let plugin { return report(plugin.status(for: error), stdout) }
            plain.error(error.message)
            return error.exitCode
        }
        switch outcome {
        case .help(let path):
            stdout.write(HelpFormatter().help(for: spec, path: path))
            return .success
        case .version:
            stdout.write("\(spec.name) \(AstraVersion.current)\n")
            return .success
        case .manual(.troff):
            stdout.write(ManualFormatter().manual(for: spec))
            return .success
        case .manual(.markdown):
            stdout.write(MarkdownFormatter().markdown(for: spec))
            return .success
        case .completion(let shell):
            stdout.write(CompletionFormatter().completion(for: spec, shell: shell))
            return .success
        case .run(let parsed):
            let diagnostics = Diagnostics(
                tool: spec.name, level: Diagnostics.Level(verbosity: parsed.count(CommonOptions.Key.verbose)),
                sipTrace: parsed.flag(CommonOptions.Key.sipTrace), sink: stderr)
            let format = OutputFormat.resolve(parsed, stdoutIsTerminal: stdout.isTerminal)
            let context = ToolContext(
                tool: spec.name, arguments: parsed, output: EventWriter(format: format, sink: stdout),
                diagnostics: diagnostics)
            do {
                return try await body(context)
            } catch {
                let mapped = ToolError(mapping: error)
                if let plugin {
                    diagnostics.debug("error raised at \(mapped.file):\(mapped.line)")
                    return report(plugin.status(for: mapped), stdout)
                }
                diagnostics.error(mapped.message)
                diagnostics.debug("error raised at \(mapped.file):\(mapped.line)")
                return mapped.exitCode
            }
        }
    }

    /// Writes a monitoring status line (redacted, like every diagnostic) and returns its exit code.
    private static func report(_ status: MonitoringStatus, _ stdout: any OutputSink) -> ExitCode {
        stdout.write(Redaction.redact(status.line) + "\n")
        return status.state.exitCode
    }
}

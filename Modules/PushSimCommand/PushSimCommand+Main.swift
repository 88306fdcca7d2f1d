// astra-pushsim's command: the tool's entry (docs/man/astra-pushsim.md); Tools/astra-pushsim/main.swift
// only calls it. ToolSupport parses and prints; PushSimCommand.execute (virtual time) and
// LiveCommand (live mode) do the work; PushKitLive.ClientSession runs --client-cmd.
import PushKitEmu
import PushKitLive
import ToolSupport

extension PushSimCommand {
    /// Parses the process's command line, runs the subcommand and exits with its code
    /// (docs/adr/0190-tool-commands-in-libraries.md).
    package static func main() async -> Never {
        await ToolMain.run(ToolSpecs.pushsim) { context in
            let arguments = context.arguments
            // --format svg: run as JSON, then draw the timeline (WakeDiagram).
            let svg = arguments.string(CommonOptions.Key.format) == "svg" && !arguments.flag(CommonOptions.Key.json)
            let format: PushSimCommand.Format = context.output.format == .text && !svg ? .text : .json
            if arguments.wasGiven("output") && !svg { throw ToolError(.usage, "-o/--output needs --format svg") }
            if context.subcommand == "client" {
                // The reference policy served over the client protocol (stdin/stdout): the built-in
                // client process of live mode, and the protocol's reference implementation.
                let choice = arguments.choice("policy", as: PolicyChoice.self) ?? .correct
                return ExitCode(
                    ClientProtocolServer(name: choice.rawValue, sealing: CallSealBox()) { choice.policy($0) }.serve())
            }
            let clientCommand = arguments.string("client-cmd")
            let clientTimeout = Int64(arguments.int("client-timeout-ms") ?? Int(ClientSession.defaultTimeoutMs))
            guard clientTimeout > 0 else { throw ToolError(.usage, "--client-timeout-ms must be positive") }
            let output: PushSimOutput
            var streamed = false
            if context.subcommand == "live" {
                var options = liveOptions(arguments, format)
                options.overrides = try deliveryOverrides(arguments)
                options.clientCommand = clientCommand
                options.clientTimeoutMs = clientTimeout
                options.delivery = DeliveryModel(rawValue: arguments.string("delivery") ?? "") ?? .ideal
                options.seed = arguments.unsigned(CommonOptions.Key.seed) ?? 1
                output = await LiveCommand.execute(scenario: arguments.string("scenario"), options: options)
            } else {
                var options = PushSimOptions()
                options.policy = arguments.choice("policy", as: PolicyChoice.self) ?? .correct
                options.seed = arguments.unsigned(CommonOptions.Key.seed) ?? 1
                options.seedGiven = arguments.wasGiven(CommonOptions.Key.seed)
                options.replayArguments = replayArguments(arguments)
                options.count = arguments.int("count") ?? options.count
                options.strikeLimit = arguments.wasGiven("strike-limit") ? arguments.int("strike-limit") : nil
                options.format = format
                options.fieldRuns = arguments.int("field-runs") ?? options.fieldRuns
                options.deliveries = DeliveryModel(rawValue: arguments.string("delivery") ?? "").map { [$0] } ?? []
                options.overrides = try deliveryOverrides(arguments)
                let load = { (path: String) throws -> [UInt8] in
                    try InputReader.read(path == "-" ? nil : path, limit: .scenario)
                }
                let command = context.subcommand ?? ""
                // Each line is written (write(2), no buffer) the moment it is made; svg draws at the end.
                let emit: (String) -> Void = svg ? { _ in } : { context.output.write($0 + "\n") }
                if let clientCommand {
                    let session: ClientSession
                    do throws(ClientFault) {
                        session = try ClientSession(command: clientCommand, timeoutMs: clientTimeout, lifetime: .perRun)
                    } catch {
                        throw ToolError(.usage, "--client-cmd \(ShellWords.quoted(clientCommand)): \(error.detail)")
                    }
                    output = PushSimCommand.execute(
                        command, scenario: arguments.string("scenario"), options: options,
                        source: ClientProcessSource(session: session), load: load, emit: emit)
                    session.close()
                } else {
                    output = PushSimCommand.execute(
                        command, scenario: arguments.string("scenario"), options: options, load: load, emit: emit)
                }
                streamed = !svg
            }
            if output.isUsageError { throw ToolError(.usage, output.stderr.joined(separator: "; ")) }
            if svg {
                let title = "astra-pushsim \(context.subcommand ?? "") \(arguments.string("scenario") ?? "")"
                    + " --policy \(arguments.string("policy") ?? "correct")"
                let picture = SequenceDiagramSVG().renderFitting(WakeDiagram.diagram(lines: output.stdout, title: title))
                if let path = arguments.string("output"), path != "-" {
                    try OutputFile.save(Array(picture.utf8), to: path, option: "-o")
                } else {
                    context.output.write(picture)
                }
            } else if !streamed {
                for line in output.stdout { context.output.write(line + "\n") }
            }
            for line in output.stderr { context.diagnostics.error(line) }
            return ExitCode(output.exitCode)
        }
    }
}

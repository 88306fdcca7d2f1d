// astra-pushsim — exercise PushKit/CallKit wake-decision rules (docs/man/astra-pushsim.md).
// Thin main: ToolSupport parses and prints; PushKitEmu.PushSimCommand (virtual time) and
// PushKitLive.LiveCommand (live mode) do the work.
import PushKitEmu
import PushKitLive
import ToolSupport

await ToolMain.run(ToolSpecs.pushsim) { context in
    let arguments = context.arguments
    let format: PushSimCommand.Format = context.output.format == .text ? .text : .json
    let output: PushSimOutput
    if context.subcommand == "live" {
        output = await LiveCommand.execute(
            scenario: arguments.string("scenario"), options: liveOptions(arguments, format))
    } else {
        var options = PushSimOptions()
        options.policy = arguments.choice("policy", as: PolicyChoice.self) ?? .correct
        options.seed = UInt64(truncatingIfNeeded: arguments.int(CommonOptions.Key.seed) ?? 1)
        options.count = arguments.int("count") ?? options.count
        options.strikeLimit = arguments.wasGiven("strike-limit") ? arguments.int("strike-limit") : nil
        options.format = format
        output = PushSimCommand.execute(
            context.subcommand ?? "", scenario: arguments.string("scenario"), options: options
        ) { path in try InputReader.read(path == "-" ? nil : path, limit: .scenario) }
    }
    if output.isUsageError { throw ToolError(.usage, output.stderr.joined(separator: "; ")) }
    for line in output.stdout { context.output.write(line + "\n") }
    for line in output.stderr { context.diagnostics.error(line) }
    return ExitCode(output.exitCode)
}

// astra-pushsim — exercise PushKit/CallKit wake-decision rules (docs/man/astra-pushsim.md).
import ToolSupport

await ToolMain.run(ToolSpecs.pushsim) { context in
    switch context.subcommand {
    case "run", "check", "fuzz": throw context.notImplemented(.pushsim)
    default: throw ToolError(.internal, "no handler for '\(context.subcommand ?? "")'")
    }
}

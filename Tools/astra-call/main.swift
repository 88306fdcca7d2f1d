// astra-call — place and answer SIP calls (docs/man/astra-call.md).
import ToolSupport

await ToolMain.run(ToolSpecs.call) { context in
    switch context.subcommand {
    case "dial", "answer": throw context.notImplemented(.call)
    default: throw ToolError(.internal, "no handler for '\(context.subcommand ?? "")'")
    }
}

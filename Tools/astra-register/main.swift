// astra-register — verify a SIP line: register, report, unregister (docs/man/astra-register.md).
import ToolSupport

await ToolMain.run(ToolSpecs.register) { context in
    if context.arguments.wasGiven("load") {
        throw context.notImplemented(.registerLoad, command: "load mode")
    }
    throw context.notImplemented(.register, command: "register")
}

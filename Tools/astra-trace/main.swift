// astra-trace — draw a saved SIP trace (docs/man/astra-trace.md).
// Thin main: ToolSupport parses; TraceRun reads the --sip-trace-file and draws it with Capture.
import ToolSupport

await ToolMain.run(ToolSpecs.trace) { context in
    try TraceRun(context: context).run()
}

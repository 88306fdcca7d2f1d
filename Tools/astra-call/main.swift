// astra-call — place and answer SIP calls (docs/man/astra-call.md).
// Thin main: ToolSupport parses, CallRun.Options.parse reads the options, CallRun drives one
// CallSession.Call over a registered line (LineRunner); the load modes (`load`, `answer --load`)
// drive many over many lines (the CallLoad module: CallLoadRun, CallFleet).
import CallLoad
import Capture
import ToolSupport

await ToolMain.run(ToolSpecs.call) { context in
    if context.subcommand == "load" {
        var (setups, options) = try CallLoadOptions.load(context)
        options.capture = try await CaptureHub.make(context)
        options.call.mediaTap = options.capture?.mediaTap
        return await CallLoadRun(setups: setups, options: options, context: context).run()
    }
    if context.subcommand == "answer", let path = context.arguments.string("load") {
        var (setups, options) = try CallLoadOptions.fleet(context, path: path)
        options.capture = try await CaptureHub.make(context)
        options.call.mediaTap = options.capture?.mediaTap
        return await CallFleet(setups: setups, options: options, context: context).run()
    }
    let (setup, parsed, audio) = try CallRun.Options.parse(context)
    var options = parsed
    options.capture = try await CaptureHub.make(context)
    options.call.mediaTap = options.capture?.mediaTap
    return await CallRun(setup: setup, options: options, audio: audio, context: context).run()
}

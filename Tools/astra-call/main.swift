// astra-call — place and answer SIP calls (docs/man/astra-call.md).
// Thin main: ToolSupport parses, CallRun.Options.parse reads the options, CallRun drives one
// CallSession.Call over a registered line (LineRunner).
import Capture
import ToolSupport

await ToolMain.run(ToolSpecs.call) { context in
    let (setup, parsed, audio) = try CallRun.Options.parse(context)
    var options = parsed
    options.capture = try await CaptureHub.make(context)
    options.call.mediaTap = options.capture?.mediaTap
    return await CallRun(setup: setup, options: options, audio: audio, context: context).run()
}

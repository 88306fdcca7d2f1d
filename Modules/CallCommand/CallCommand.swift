// astra-call's command: place and answer SIP calls, one or many (docs/man/astra-call.md).
// Tools/astra-call/main.swift only calls it. ToolSupport parses, CallRun.Options.parse reads the
// options, CallRun drives one CallSession.Call over a registered line (LineRunner); the load
// modes (`load`, `answer --load`) drive many over many lines (the CallLoad module: CallLoadRun, CallFleet).
import CallLoad
import Capture
import ToolSupport

/// The astra-call command, as a library type so that the tool's main is one call
/// (docs/adr/0190-tool-commands-in-libraries.md).
public enum CallCommand {
    /// Parses the process's command line, runs the subcommand and exits with its code.
    public static func run() async -> Never {
        await ToolMain.run(ToolSpecs.call) { context in
            if context.subcommand == "load", let path = context.arguments.string("merge") {
                return CallLoadOptions.merge(context, path: path)
            }
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
    }
}

// astra-trace's command: draw a saved SIP trace (docs/man/astra-trace.md);
// Tools/astra-trace/main.swift only calls it. ToolSupport parses; TraceRun reads the
// --sip-trace-file and draws it with Capture.
import ToolSupport

/// The astra-trace command, as a library type so that the tool's main is one call
/// (docs/adr/0190-tool-commands-in-libraries.md).
public enum TraceCommand {
    /// Parses the process's command line, draws the trace and exits with its code.
    public static func run() async -> Never {
        await ToolMain.run(ToolSpecs.trace) { context in
            try TraceRun(context: context).run()
        }
    }
}

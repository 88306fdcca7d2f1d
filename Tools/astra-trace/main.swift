// astra-trace — draw a saved SIP trace (docs/man/astra-trace.md).
// Thin main: the command is TraceCommand, in its module (docs/adr/0190-tool-commands-in-libraries.md).
import TraceCommand

await TraceCommand.run()

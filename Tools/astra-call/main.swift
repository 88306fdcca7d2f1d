// astra-call — place and answer SIP calls (docs/man/astra-call.md).
// Thin main: the command is CallCommand, in its module (docs/adr/0190-tool-commands-in-libraries.md).
import CallCommand

await CallCommand.run()

// astra-pushsim — exercise PushKit/CallKit wake-decision rules (docs/man/astra-pushsim.md).
// Thin main: the command is PushSimCommand, in its module (docs/adr/0190-tool-commands-in-libraries.md).
import PushSimCommand

await PushSimCommand.main()

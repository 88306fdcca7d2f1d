// astra-register — verify a SIP line: register, report, unregister (docs/man/astra-register.md).
// Thin main: the command is RegisterCommand, in its module (docs/adr/0190-tool-commands-in-libraries.md);
// a one-shot over UDP finishes in its init, before Swift concurrency starts (docs/adr/0105).
import RegisterCommand

await RegisterCommand().run()

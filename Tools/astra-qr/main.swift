// astra-qr — make and read line provisioning QR codes (docs/man/astra-qr.md).
// Thin main: the command is QRCommand, in its module (docs/adr/0190-tool-commands-in-libraries.md).
import QRCommand

await QRCommand.run()

// astra-wakegw — the push wake gateway beside Kamailio (docs/man/astra-wakegw.md, docs/wake-gateway.md).
// Thin main: the command is WakeGatewayCommand, in its module (docs/adr/0190-tool-commands-in-libraries.md).
import WakeGatewayCommand

await WakeGatewayCommand.run()

// astra-qr — make and read line provisioning QR codes (docs/man/astra-qr.md).
import ToolSupport

await ToolMain.run(ToolSpecs.qr) { context in
    switch context.subcommand {
    case "encode": throw context.notImplemented(.qrEncode)
    case "decode": throw context.notImplemented(.qrDecode)
    case "lines": throw context.notImplemented(.qrLines)
    default: throw ToolError(.internal, "no handler for '\(context.subcommand ?? "")'")
    }
}

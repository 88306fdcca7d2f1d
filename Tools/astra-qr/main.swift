// astra-qr — make and read line provisioning QR codes (docs/man/astra-qr.md).
// Thin main: the commands live in the Provisioning module; QRTool maps flags to them.
import ToolSupport

await ToolMain.run(ToolSpecs.qr) { context in
    switch context.subcommand {
    case "encode": return try QRTool.encode(context)
    case "decode": return try QRTool.decode(context)
    case "lines": return try await QRTool.lines(context)
    default: throw ToolError(.internal, "no handler for '\(context.subcommand ?? "")'")
    }
}

// astra-qr's command: make and read line provisioning QR codes (docs/man/astra-qr.md);
// Tools/astra-qr/main.swift only calls it. ToolSupport parses, QRTool maps the flags to the
// Provisioning commands (EncodeCommand, DecodeCommand, the platform's lines).
import ToolSupport

/// The astra-qr command, as a library type so that the tool's main is one call
/// (docs/adr/0190-tool-commands-in-libraries.md).
public enum QRCommand {
    /// Parses the process's command line, runs the subcommand and exits with its code.
    public static func run() async -> Never {
        await ToolMain.run(ToolSpecs.qr) { context in
            switch context.subcommand {
            case "encode": return try QRTool.encode(context)
            case "decode": return try QRTool.decode(context)
            case "lines": return try await QRTool.lines(context)
            default: throw ToolError(.internal, "no handler for '\(context.subcommand ?? "")'")
            }
        }
    }
}

import Provisioning
import Testing
import ToolSupport

@testable import QRCommand

/// The flag mapping astra-qr's command owns (the encode and decode runs themselves go through
/// the built tool: ToolsTests.AstraQRToolTests).
@Suite struct QRToolTests {
    static func parsed(_ arguments: [String]) throws -> ParsedArguments {
        guard case .run(let parsed) = try CommandLineParser(ToolSpecs.qr).parse(arguments) else {
            throw ToolError(.internal, "expected a run")
        }
        return parsed
    }

    /// At most one of --passphrase, --passphrase-file, --key-file; an empty passphrase is refused.
    @Test func oneSealKeyAtMost() throws {
        let both = try Self.parsed(["encode", "--passphrase", "pw", "--key-file", "/nonexistent", "sip:1001@example.com"])
        #expect(throws: ToolError(.usage, "")) { try QRTool.sealKey(both) }
        let empty = try Self.parsed(["encode", "--passphrase", "", "sip:1001@example.com"])
        #expect(throws: ToolError(.usage, "")) { try QRTool.sealKey(empty) }
        guard case .passphrase(let text)? = try QRTool.sealKey(try Self.parsed(["encode", "--passphrase", "pw", "sip:1001@example.com"]))
        else {
            Issue.record("expected a passphrase")
            return
        }
        #expect(text == "pw")
        #expect(try QRTool.sealKey(try Self.parsed(["encode", "sip:1001@example.com"])) == nil)
    }

    /// The one place Provisioning errors become exit codes (docs/man/astra-qr.md).
    @Test(arguments: [
        (ProvisioningError.Code.invalidLine, ToolError.Code.usage), (.badOption, .usage), (.tooLarge, .usage),
        (.library, .internal), (.noCode, .failed), (.wrongPassphrase, .failed),
    ])
    func provisioningErrorsMapToExitCodes(_ code: ProvisioningError.Code, _ expected: ToolError.Code) {
        #expect(QRTool.toolError(ProvisioningError(code, "detail")).code == expected)
    }
}

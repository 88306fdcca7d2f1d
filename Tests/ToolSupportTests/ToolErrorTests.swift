import Testing
import ToolSupport

@Suite struct ToolErrorTests {
    @Test(
        arguments: [
            (ToolError.Code.failed, 1),
            (.network, 3),
            (.timeout, 3),
            (.certificate, 6),
            (.noCodeFound, 4),
            (.usage, 64),
            (.unreadableInput, 64),
            (.internal, 70),
        ] as [(ToolError.Code, Int32)])
    func mapsEveryCodeToItsExitStatus(_ code: ToolError.Code, _ status: Int32) {
        #expect(ToolError(code, "x").exitCode.rawValue == status)
    }

    @Test func everyCodeIsCovered() {
        #expect(ToolError.Code.allCases.count == 8)  // one row per code in the table above
    }

    struct LowerError: ToolErrorConvertible {
        var toolError: ToolError { ToolError(.timeout, "no response from pbx.example.com:5060 in 10 s") }
    }
    struct Unknown: Error {}

    @Test func mapsForeignErrors() {
        #expect(ToolError(mapping: ToolError(.noCodeFound, "x")).code == .noCodeFound)
        let lower = ToolError(mapping: LowerError())
        #expect(lower.code == .timeout)
        #expect(lower.message == "no response from pbx.example.com:5060 in 10 s")
        #expect(ToolError(mapping: CancellationError()).code == .failed)
        let unknown = ToolError(mapping: Unknown())
        #expect(unknown.code == .internal)
        #expect(unknown.message.hasPrefix("internal error: "))
    }

    @Test func equalityComparesCodesOnly() {
        #expect(ToolError(.usage, "a") == ToolError(.usage, "b"))
        #expect(ToolError(.usage, "a") != ToolError(.failed, "a"))
    }
}

import Foundation
import Testing
import ToolSupport

@Suite struct LineFlagsTests {
    private func flags(_ arguments: [String]) throws -> LineFlags {
        guard case .run(let parsed) = try CommandLineParser(ToolSpecs.register).parse(arguments) else {
            throw ToolError(.internal, "expected .run")
        }
        return try LineFlags(parsed)
    }

    @Test func addressOfRecordStandsForUserAndDomain() throws {
        let line = try flags(["sips:alice@pbx.example.com;transport=tls"])
        #expect(line.user == "alice")
        #expect(line.domain == "pbx.example.com")
        #expect(line.overrides.jsonText == #"{"user":"alice","domain":"pbx.example.com"}"#)
    }

    @Test func explicitFlagsWinOverTheAddressOfRecord() throws {
        let line = try flags(["--user", "bob", "sip:alice@pbx.example.com"])
        #expect(line.user == "bob")
        #expect(line.domain == "pbx.example.com")
    }

    @Test func overridesUseLineFieldNamesInSchemaOrder() throws {
        let line = try flags([
            "--transport", "WSS", "--ws-path", "/sip", "--expires", "300", "--auth-user", "a1",
            "--server", "edge.example.com:443", "--display-name", "Alice", "--line", "line.json",
        ])
        #expect(line.lineFile == "line.json")
        #expect(
            line.overrides.jsonText
                == #"{"display_name":"Alice","auth_user":"a1","server":"edge.example.com:443","transport":"wss","ws_path":"/sip","expires":300}"#
        )
    }

    @Test(arguments: ["alice@pbx", "sip:pbx.example.com", "sip:@pbx", "http://x@y", "sip:a:b@pbx"])
    func rejectsMalformedAddressesOfRecord(_ aor: String) {
        #expect(throws: ToolError(.usage, "")) { try flags([aor]) }
    }

    @Test func readsTheFirstLineOfThePasswordFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "astra-pw-\(UInt32.random(in: 0...UInt32.max))"
        ).path
        try Data("s3cret\r\nignored\n".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try flags(["--password-file", path]).password == "s3cret")
        #expect(throws: ToolError(.usage, "")) { try flags(["--password-file", path, "--password", "x"]) }
        #expect(throws: ToolError(.unreadableInput, "")) { try flags(["--password-file", path + ".missing"]) }
    }
}

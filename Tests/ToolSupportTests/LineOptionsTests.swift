import SIPCore
import Testing
import ToolSupport

/// Line resolution for every tool: flags > `--line FILE` > standard input when not a terminal.
@Suite struct LineOptionsTests {
    let fileLine = #"{"v":1,"user":"1001","password":"pw","domain":"example.com","transport":"wss","expires":600}"#

    private func resolve(_ arguments: [String], stdin: String? = nil, files: [String: String] = [:]) throws
        -> LineOptions.Resolved
    {
        guard case .run(let parsed) = try CommandLineParser(ToolSpecs.register).parse(arguments) else {
            throw ToolError(.internal, "expected .run")
        }
        return try LineOptions.resolveDetailed(parsed, standardInputIsTerminal: stdin == nil) {
            path throws(ToolError) in
            if InputReader.isStandardInput(path) { return Array((stdin ?? "").utf8) }
            guard let text = files[path!] else { throw ToolError(.unreadableInput, "cannot read '\(path!)'") }
            return Array(text.utf8)
        }
    }

    @Test func flagsAlone() throws {
        let r = try resolve(["--user", "alice", "--domain", "example.com", "--transport", "ws"])
        #expect(r.line == Line(user: "alice", domain: "example.com", transport: .ws))
        #expect(r.source == .flagsOnly)
        #expect(r.line.effectivePort == 80 && r.line.effectiveWSPath == "/ws")
    }

    @Test func addressOfRecordWithSchemeAndPort() throws {
        let r = try resolve(["sips:alice@example.com:5071"])
        #expect(r.line.transport == .tls && r.line.effectiveServer == LineServer(host: "example.com", port: 5071))
        let flagsWin = try resolve(["--transport", "wss", "--server", "edge:443", "sips:alice@example.com:5071"])
        #expect(flagsWin.line.transport == .wss && flagsWin.line.effectiveServer == LineServer(host: "edge", port: 443))
    }

    /// RFC 7118 §5.2: the URI parameter is `ws` for WSS too, so `sips:…;transport=ws` is WSS;
    /// `transport=wss` (seen in the wild) is accepted and means the same.
    @Test func secureWebSocketAddressesOfRecord() throws {
        #expect(try resolve(["sips:alice@example.com;transport=ws"]).line.transport == .wss)
        #expect(try resolve(["sips:alice@example.com;transport=wss"]).line.transport == .wss)
        #expect(try resolve(["sip:alice@example.com;transport=wss"]).line.transport == .wss)
        #expect(try resolve(["sip:alice@example.com;transport=ws"]).line.transport == .ws)
        #expect(try resolve(["sips:alice@example.com;transport=tcp"]).line.transport == .tls)
    }

    @Test func flagsOverrideTheLineFile() throws {
        let r = try resolve(["--line", "l.json", "--expires", "60", "--password", "new"], files: ["l.json": fileLine])
        #expect(r.source == .file("l.json"))
        #expect(r.line.expires == 60 && r.line.password == "new" && r.line.transport == .wss)
    }

    @Test func lineFileWinsOverStandardInput() throws {
        let r = try resolve(
            ["--line", "l.json"], stdin: #"{"user":"other","domain":"x.org"}"#, files: ["l.json": fileLine])
        #expect(r.line.user == "1001")
    }

    @Test func standardInputWhenNotATerminal() throws {
        let r = try resolve(["--expires", "120"], stdin: fileLine + "\n" + fileLine + "\n")
        #expect(r.source == .standardInput && r.ignoredLines == 1)
        #expect(r.line.user == "1001" && r.line.expires == 120)
        let dash = try resolve(["--line", "-"], stdin: "  {\n \"user\": \"a\",\n \"domain\": \"b.org\"\n}\n")
        #expect(dash.line.user == "a" && dash.ignoredLines == 0)
    }

    @Test func standardInputIsNotReadWhenFlagsNameUserAndDomain() throws {
        let r = try resolve(["--user", "a", "--domain", "b.org"], stdin: "garbage that would fail")
        #expect(r.source == .flagsOnly)
    }

    @Test func errorsAreUsageErrors() throws {
        #expect(throws: ToolError(.usage, "")) { try resolve([]) }
        #expect(throws: ToolError(.usage, "")) { try resolve(["--user", "a"]) }
        #expect(throws: ToolError(.usage, "")) { try resolve(["--user", "a", "--domain", "b", "--server", "h:0"]) }
        #expect(throws: ToolError(.unreadableInput, "")) { try resolve(["--line", "missing.json"]) }
        #expect(throws: ToolError(.unreadableInput, "")) { try resolve([], stdin: "not json") }
        do {
            _ = try resolve(["--user", "a", "--domain", "b", "--server", "h:70000"])
        } catch {
            #expect((error as? ToolError)?.message == "line: port 70000 out of range 1…65535 (server)")
        }
    }
}

import Testing
import SIPCore
import ToolSupport

/// Runs ``ToolMain/execute`` in-process with buffers for stdout and stderr.
private func execute(
    _ spec: CommandSpec, _ arguments: [String], terminal: Bool = false,
    body: @escaping ToolMain.Body = { _ in .success }
) async -> (code: ExitCode, stdout: String, stderr: String) {
    let stdout = BufferSink(isTerminal: terminal)
    let stderr = BufferSink()
    let code = await ToolMain.execute(spec, arguments: arguments, stdout: stdout, stderr: stderr, body)
    return (code, stdout.text, stderr.text)
}

@Suite struct ToolMainTests {
    @Test func versionPrintsToolAndSharedVersion() async {
        let result = await execute(DemoSpecs.nested, ["--version"])
        #expect(result.code == .success)
        #expect(result.stdout == "demo \(AstraVersion.current)\n")
        #expect(result.stderr.isEmpty)
    }

    @Test func helpGoesToStdout() async {
        let result = await execute(DemoSpecs.nested, ["dial", "--help"])
        #expect(result.code == .success)
        #expect(result.stdout == HelpFormatter().help(for: DemoSpecs.nested, path: ["dial"]))
        #expect(result.stderr.isEmpty)
    }

    @Test func usageErrorsAreOneLineAndExit64() async {
        let result = await execute(DemoSpecs.nested, ["dial", "--bogus", "x"]) { _ in
            Issue.record("the body must not run")
            return .success
        }
        #expect(result.code == .usage)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "demo: unknown option --bogus\n")
    }

    @Test func thrownErrorsAreMappedAndRedacted() async {
        let result = await execute(DemoSpecs.nested, ["dial", "x"]) { _ in
            throw ToolError(.failed, "403 Forbidden for password=hunter2")
        }
        #expect(result.code == .failure)
        #expect(result.stderr == "demo: 403 Forbidden for password=\(Redaction.placeholder)\n")
    }

    @Test func bodySeesParsedArgumentsFormatAndVerbosity() async {
        let result = await execute(DemoSpecs.nested, ["dial", "-vv", "--sip-trace", "sip:bob@x"], terminal: true) {
            context in
            #expect(context.subcommand == "dial")
            #expect(context.arguments.string("target") == "sip:bob@x")
            #expect(context.output.format == .text)
            #expect(context.diagnostics.level == .debug)
            #expect(context.diagnostics.sipTrace)
            context.diagnostics.info("dialling")
            return .failure
        }
        #expect(result.code == .failure)
        #expect(result.stderr == "demo: dialling\n")
    }

    @Test func pipedOutputIsJSONLines() async {
        let result = await execute(DemoSpecs.nested, ["dial", "x"]) { context in
            context.output.emit("answered", ["status": 200])
            return .success
        }
        #expect(result.stdout.hasPrefix(#"{"event":"answered","t":"#))
        #expect(result.stdout.hasSuffix(#","status":200}"# + "\n"))
    }

    @Test func manualFormatsAreGenerated() async {
        let troff = await execute(DemoSpecs.nested, ["--generate-manual"])
        #expect(troff.stdout == ManualFormatter().manual(for: DemoSpecs.nested))
        let markdown = await execute(DemoSpecs.nested, ["--generate-manual=markdown"])
        #expect(markdown.stdout == MarkdownFormatter().markdown(for: DemoSpecs.nested))
    }

    @Test func completionScriptsAreGenerated() async {
        for shell in CompletionShell.allCases {
            let result = await execute(DemoSpecs.nested, ["--generate-completion=\(shell.rawValue)"])
            #expect(result.code == .success)
            #expect(result.stdout == CompletionFormatter().completion(for: DemoSpecs.nested, shell: shell))
        }
        let unknown = await execute(DemoSpecs.nested, ["--generate-completion=fish"])
        #expect(unknown.code == .usage)
        #expect(unknown.stderr.contains("expected one of bash, zsh, got 'fish'"))
    }
}

import Testing

@testable import ToolSupport

/// One successful parse: arguments in, command path and explicit values out.
struct ParseCase: CustomTestStringConvertible, Sendable {
    var arguments: [String]
    var path: [String] = []
    var values: [String: [String]]
    var testDescription: String { arguments.joined(separator: " ") }
}

/// One rejected command line and its one-line message.
struct ParseErrorCase: CustomTestStringConvertible, Sendable {
    var arguments: [String]
    var message: String
    var testDescription: String { arguments.joined(separator: " ") }
}

@Suite struct CommandLineParserTests {
    static let flatCases: [ParseCase] = [
        ParseCase(arguments: [], values: [:]),
        ParseCase(arguments: ["--keep"], values: ["keep": [""]]),
        ParseCase(arguments: ["-k", "-k"], values: ["keep": [""]]),
        ParseCase(arguments: ["-v"], values: ["verbose": [""]]),
        ParseCase(arguments: ["-vv"], values: ["verbose": ["", ""]]),
        ParseCase(arguments: ["-v", "--verbose", "-vv"], values: ["verbose": ["", "", "", ""]]),
        ParseCase(arguments: ["-vk"], values: ["verbose": [""], "keep": [""]]),
        ParseCase(arguments: ["--output", "a.png"], values: ["output": ["a.png"]]),
        ParseCase(arguments: ["--output=a.png"], values: ["output": ["a.png"]]),
        ParseCase(arguments: ["--output="], values: ["output": [""]]),
        ParseCase(arguments: ["--output=x=y"], values: ["output": ["x=y"]]),
        ParseCase(arguments: ["-o", "a.png"], values: ["output": ["a.png"]]),
        ParseCase(arguments: ["-oa.png"], values: ["output": ["a.png"]]),
        ParseCase(arguments: ["-o", "-"], values: ["output": ["-"]]),
        ParseCase(arguments: ["-vko", "x"], values: ["verbose": [""], "keep": [""], "output": ["x"]]),
        ParseCase(arguments: ["-vkox"], values: ["verbose": [""], "keep": [""], "output": ["x"]]),
        ParseCase(arguments: ["-o", "a", "-o", "b"], values: ["output": ["b"]]),
        ParseCase(arguments: ["-t", "svg"], values: ["type": ["SVG"]]),
        ParseCase(arguments: ["--type=PNG"], values: ["type": ["PNG"]]),
        ParseCase(arguments: ["-c", "42"], values: ["count": ["42"]]),
        ParseCase(arguments: ["-c", "-3"], values: ["count": ["-3"]]),
        ParseCase(arguments: ["--rate", "0.25"], values: ["rate": ["0.25"]]),
        ParseCase(arguments: ["--rate", "-1.5"], values: ["rate": ["-1.5"]]),
        ParseCase(arguments: ["-H", "a", "--header", "b", "-Hc"], values: ["header": ["a", "b", "c"]]),
        ParseCase(arguments: ["x.png", "y.png"], values: ["file": ["x.png", "y.png"]]),
        ParseCase(arguments: ["-", "x"], values: ["file": ["-", "x"]]),
        ParseCase(arguments: ["--", "--keep", "-v"], values: ["file": ["--keep", "-v"]]),
        ParseCase(arguments: ["a", "--keep", "b"], values: ["file": ["a", "b"], "keep": [""]]),
        ParseCase(arguments: ["--secret-flag"], values: ["secret-flag": [""]]),
    ]

    @Test(arguments: flatCases)
    func parsesFlatCommand(_ testCase: ParseCase) throws {
        let outcome = try CommandLineParser(DemoSpecs.flat).parse(testCase.arguments)
        guard case .run(let parsed) = outcome else {
            Issue.record("expected .run, got \(outcome)")
            return
        }
        #expect(parsed.commandPath == testCase.path)
        #expect(parsed.values == testCase.values)
    }

    static let nestedCases: [ParseCase] = [
        ParseCase(arguments: ["dial", "sip:bob@x"], path: ["dial"], values: ["target": ["sip:bob@x"]]),
        ParseCase(arguments: ["dial", "a", "b"], path: ["dial"], values: ["target": ["a"], "extra": ["b"]]),
        ParseCase(
            arguments: ["dial", "--duration", "2.5", "-vv", "--json", "t"], path: ["dial"],
            values: ["duration": ["2.5"], "verbose": ["", ""], "json": [""], "target": ["t"]]),
        ParseCase(arguments: ["dial", "--", "-5x"], path: ["dial"], values: ["target": ["-5x"]]),
        ParseCase(arguments: ["decode", "a", "b", "c"], path: ["decode"], values: ["file": ["a", "b", "c"]]),
        ParseCase(arguments: ["decode", "help"], path: ["decode"], values: ["file": ["help"]]),
    ]

    @Test(arguments: nestedCases)
    func parsesSubcommands(_ testCase: ParseCase) throws {
        let outcome = try CommandLineParser(DemoSpecs.nested).parse(testCase.arguments)
        guard case .run(let parsed) = outcome else {
            Issue.record("expected .run, got \(outcome)")
            return
        }
        #expect(parsed.commandPath == testCase.path)
        #expect(parsed.values == testCase.values)
    }

    static let flatErrors: [ParseErrorCase] = [
        ParseErrorCase(arguments: ["--bogus"], message: "unknown option --bogus"),
        ParseErrorCase(arguments: ["--bogus=1"], message: "unknown option --bogus"),
        ParseErrorCase(arguments: ["--kep"], message: "unknown option --kep (did you mean --keep?)"),
        ParseErrorCase(arguments: ["-x"], message: "unknown option -x"),
        ParseErrorCase(arguments: ["-vx"], message: "unknown option -x"),
        ParseErrorCase(arguments: ["--keep=yes"], message: "option --keep: does not take a value"),
        ParseErrorCase(arguments: ["--output"], message: "option --output: missing value"),
        ParseErrorCase(arguments: ["-o"], message: "option -o: missing value"),
        ParseErrorCase(
            arguments: ["-o", "--keep"],
            message: "option -o: missing value (write -o=--keep if the value starts with '-')"),
        ParseErrorCase(arguments: ["-t", "JPG"], message: "option -t: expected one of PNG, SVG, got 'JPG'"),
        ParseErrorCase(arguments: ["--type=gif"], message: "option --type: expected one of PNG, SVG, got 'gif'"),
        ParseErrorCase(arguments: ["-c", "ten"], message: "option -c: expected an integer in -1000…1000, got 'ten'"),
        ParseErrorCase(
            arguments: ["--count=1.5"], message: "option --count: expected an integer in -1000…1000, got '1.5'"),
        ParseErrorCase(
            arguments: ["--rate", "fast"], message: "option --rate: expected a number in -100…100, got 'fast'"),
        ParseErrorCase(
            arguments: ["--rate", "nan"], message: "option --rate: expected a number in -100…100, got 'nan'"),
        // Every number has a range (checked before any conversion can trap).
        ParseErrorCase(arguments: ["--count", "1001"], message: "option --count: 1001 is out of range -1000…1000"),
        ParseErrorCase(arguments: ["--count", "1e300"], message: "option --count: 1e300 is out of range -1000…1000"),
        ParseErrorCase(arguments: ["--count", "9.3e18"], message: "option --count: 9.3e18 is out of range -1000…1000"),
        ParseErrorCase(
            arguments: ["--count", "99999999999999999999"],
            message: "option --count: 99999999999999999999 is out of range -1000…1000"),
        ParseErrorCase(arguments: ["--count", ""], message: "option --count: expected an integer in -1000…1000, got ''"),
        ParseErrorCase(arguments: ["--rate", "1e300"], message: "option --rate: 1e300 is out of range -100…100"),
        ParseErrorCase(arguments: ["--rate", "-inf"], message: "option --rate: expected a number in -100…100, got '-inf'"),
    ]

    @Test(arguments: flatErrors)
    func rejectsBadFlatCommandLines(_ testCase: ParseErrorCase) {
        #expect(throws: ToolError.self) { try CommandLineParser(DemoSpecs.flat).parse(testCase.arguments) }
        do {
            _ = try CommandLineParser(DemoSpecs.flat).parse(testCase.arguments)
        } catch {
            #expect(error.code == .usage)
            #expect(error.message == testCase.message)
            #expect(error.exitCode == .usage)
        }
    }

    static let nestedErrors: [ParseErrorCase] = [
        ParseErrorCase(arguments: [], message: "missing subcommand (expected one of dial, decode; see 'demo --help')"),
        ParseErrorCase(arguments: ["call"], message: "unknown subcommand 'call' (expected one of dial, decode)"),
        ParseErrorCase(arguments: ["dial"], message: "missing argument <target>"),
        ParseErrorCase(arguments: ["dial", "a", "b", "c"], message: "unexpected argument 'c'"),
        ParseErrorCase(arguments: ["decode"], message: "missing argument <file>"),
        ParseErrorCase(
            arguments: ["--duration", "1", "dial", "x"],
            message: "unknown option --duration (it is an option of 'demo dial': put it after the subcommand)"),
        ParseErrorCase(
            arguments: ["-v", "dial", "x"],
            message: "unknown option -v (it is an option of 'demo dial': put it after the subcommand)"),
        ParseErrorCase(arguments: ["--nothing", "dial"], message: "unknown option --nothing"),
        ParseErrorCase(
            arguments: ["dial", "--format", "xml", "x"],
            message: "option --format: expected one of json, text, got 'xml'"),
        ParseErrorCase(
            arguments: ["help", "nope"], message: "unknown subcommand 'nope' (expected one of dial, decode)"),
    ]

    @Test(arguments: nestedErrors)
    func rejectsBadSubcommandLines(_ testCase: ParseErrorCase) {
        do {
            let outcome = try CommandLineParser(DemoSpecs.nested).parse(testCase.arguments)
            Issue.record("expected an error, got \(outcome)")
        } catch {
            #expect(error.message == testCase.message)
            #expect(error.exitCode == .usage)
        }
    }

    @Test func helpVersionAndManualWinOverEverythingElse() throws {
        let parser = CommandLineParser(DemoSpecs.nested)
        func outcome(_ arguments: [String]) throws -> String { "\(try parser.parse(arguments))" }
        #expect(try outcome(["--help"]) == "help(commandPath: [])")
        #expect(try outcome(["-h"]) == "help(commandPath: [])")
        #expect(try outcome(["dial", "--bogus", "-h"]) == #"help(commandPath: ["dial"])"#)
        #expect(try outcome(["help", "dial"]) == #"help(commandPath: ["dial"])"#)
        #expect(try outcome(["help"]) == "help(commandPath: [])")
        #expect(try outcome(["dial", "--version"]) == "version")
        #expect(try outcome(["--generate-manual"]) == "manual(ToolSupport.ManualFormat.troff)")
        #expect(try outcome(["--generate-manual=markdown"]) == "manual(ToolSupport.ManualFormat.markdown)")
        // After `--`, `--help` is just an argument.
        guard case .run(let parsed) = try parser.parse(["dial", "--", "--help"]) else {
            Issue.record("expected .run")
            return
        }
        #expect(parsed.string("target") == "--help")
    }

    @Test func typedAccessorsReturnValuesAndDefaults() throws {
        guard case .run(let parsed) = try CommandLineParser(DemoSpecs.flat).parse(["-c", "7", "--rate=2.5", "-vv"])
        else {
            Issue.record("expected .run")
            return
        }
        #expect(parsed.int("count") == 7)
        #expect(parsed.double("rate") == 2.5)
        #expect(parsed.count("verbose") == 2)
        #expect(parsed.flag("keep") == false)
        #expect(parsed.string("type") == "PNG")  // default
        #expect(parsed.wasGiven("type") == false)
        #expect(parsed.string("output") == nil)
        #expect(parsed.strings("file") == [])
        enum ImageType: String { case PNG, SVG }
        #expect(parsed.choice("type", as: ImageType.self) == .PNG)
    }

    @Test func realToolSpecsParse() throws {
        let parser = CommandLineParser(ToolSpecs.qr)
        guard case .run(let parsed) = try parser.parse(["encode", "-tsvg", "-o", "-", "-s", "4", "--transport", "WSS"])
        else {
            Issue.record("expected .run")
            return
        }
        #expect(parsed.commandPath == ["encode"])
        #expect(parsed.string("type") == "SVG")
        #expect(parsed.string("output") == "-")
        #expect(parsed.int("size") == 4)
        #expect(parsed.string("transport") == "wss")
    }

    @Test func everySpecHasUniqueOptionNames() {
        func check(_ command: CommandSpec, _ path: String) {
            let longs = command.options.compactMap(\.long) + ["help", "version"]
            let shorts = command.options.compactMap(\.short) + ["h"]
            #expect(Set(longs).count == longs.count, "duplicate long option in \(path)")
            #expect(Set(shorts).count == shorts.count, "duplicate short option in \(path)")
            let keys = command.options.map(\.key) + command.arguments.map(\.name)
            #expect(Set(keys).count == keys.count, "option and argument share a key in \(path)")
            for sub in command.subcommands { check(sub, path + " " + sub.name) }
        }
        for spec in ToolSpecs.all { check(spec, spec.name) }
    }
}

/// `--sip-trace` and `--sip-trace=ladder`: a flag with an optional attached value.
@Suite struct OptionalValueTests {
    static let spec = CommandSpec(
        name: "demo", abstract: "A demo.",
        options: CommonOptions.diagnostics(sipTrace: true))

    @Test func bareAttachedAndBad() throws {
        let parser = CommandLineParser(Self.spec)
        guard case .run(let bare) = try parser.parse(["--sip-trace"]) else { Issue.record("no run"); return }
        #expect(bare.flag("sip-trace") && bare.string("sip-trace") == "")
        guard case .run(let ladder) = try parser.parse(["--sip-trace=ladder"]) else { Issue.record("no run"); return }
        #expect(ladder.string("sip-trace") == "ladder")
        guard case .run(let none) = try parser.parse([]) else { Issue.record("no run"); return }
        #expect(!none.flag("sip-trace"))
        #expect(throws: ToolError.self) { try parser.parse(["--sip-trace=pretty"]) }
        do { _ = try parser.parse(["--sip-trace=pretty"]) } catch {
            #expect(error.message == "option --sip-trace: expected one of full, ladder, got 'pretty'")
        }
        // The space form works too when the next word is one of the styles; any other word
        // stays what it was (here: an unexpected argument).
        for style in ["ladder", "full"] {
            guard case .run(let spaced) = try parser.parse(["--sip-trace", style]) else { Issue.record("no run"); return }
            #expect(spaced.string("sip-trace") == style)
        }
        #expect(throws: ToolError.self) { try parser.parse(["--sip-trace", "pretty"]) }
    }
}

import AstraTestSupport
import Foundation
import Testing

/// A line from outside cannot weaken how it is protected, through the built binaries:
/// a line naming a member twice is refused by every tool that reads lines (exit 64, the name
/// given), and nothing of its password is in the error.
@Suite struct LineTrustToolTests {
    struct Outcome {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    let dir: URL
    static let secret = "pw-Secret-42"
    /// A line whose `user` comes twice: which one counts would be an accident of the parser.
    static let duplicated = #"{"v":1,"user":"1001","password":"pw-Secret-42","domain":"127.0.0.1","user":"1002"}"#

    init() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("line-trust-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try (Self.duplicated + "\n").write(to: dir.appendingPathComponent("dup.json"), atomically: true, encoding: .utf8)
    }

    /// Runs `script` with `sh -c` in the scratch directory; `$QR`, `$REG`, `$CALL` name the tools.
    func sh(_ script: String) async throws -> Outcome? {
        var environment: [String: String] = [:]
        for (variable, tool) in [("QR", "astra-qr"), ("REG", "astra-register"), ("CALL", "astra-call")] {
            guard let url = BuiltTool(name: tool).executable() else { return nil }
            environment[variable] = url.path
        }
        let child = try await ChildProcess.run(
            URL(fileURLWithPath: "/bin/sh"), ["-c", script], directory: dir, environment: environment)
        return Outcome(status: child.status, stdout: child.text, stderr: child.stderr)
    }

    @Test(arguments: [
        ("$REG < dup.json", "astra-register: standard input"),
        ("$REG --line dup.json", "astra-register: 'dup.json'"),
        ("$REG --line - < dup.json", "astra-register: standard input"),
        ("$CALL dial sip:1003@127.0.0.1 < dup.json", "astra-call: standard input"),
        ("$CALL dial --line dup.json sip:1003@127.0.0.1", "astra-call: 'dup.json'"),
        ("$CALL answer --line dup.json", "astra-call: 'dup.json'"),
        ("$QR encode -o x.png < dup.json", "astra-qr: standard input"),
        ("$QR encode --line dup.json -o x.png", "astra-qr: 'dup.json'"),
    ])
    func aDuplicateMemberIsRefusedByEveryLineReader(script: String, prefix: String) async throws {
        guard let out = try await sh(script) else { return }
        #expect(out.status == 64)
        #expect(out.stderr == prefix + #": invalid JSON at byte 68: member "user" given twice"# + "\n")
        #expect(out.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("x.png").path))
    }

    /// JSON Lines (the first line used) and a pretty-printed object are refused alike; so is a
    /// load file's line, with its number.
    @Test func everyFormOfLineInputIsChecked() async throws {
        guard
            let rows = try await sh(
                #"{ cat dup.json; echo '{"v":1,"user":"1004","domain":"127.0.0.1"}'; } | $REG"#)
        else { return }
        #expect(rows.status == 64)
        #expect(rows.stderr == #"astra-register: standard input: invalid JSON at byte 68: member "user" given twice"# + "\n")
        let pretty = try #require(
            try await sh(#"printf '{\n  "user": "1001",\n  "domain": "127.0.0.1",\n  "domain": "evil.example"\n}\n' | $REG"#))
        #expect(pretty.status == 64)
        #expect(pretty.stderr.hasSuffix(#"member "domain" given twice"# + "\n"))
        let load = try #require(
            try await sh(#"{ echo '{"v":1,"user":"1004","domain":"127.0.0.1"}'; cat dup.json; } > l.jsonl; $REG --load l.jsonl"#))
        #expect(load.status == 64)
        #expect(load.stderr == #"astra-register: l.jsonl:2: line: invalid JSON at byte 68: member "user" given twice"# + "\n")
    }

    /// A code is refused as not a line when it repeats a field, in either form (codes made by
    /// qrencode, the independent encoder); the error holds nothing of the password. The test
    /// takes an index, not the payload: Swift Testing prints its arguments, and the payload
    /// holds the test password, which the test output's secret scan refuses.
    static let repeatedFieldCodes = [
        ("astra1:u=1001;p=pw-Secret-42;d=127.0.0.1;u=1002", #"payload field "u" (user) given twice"#),
        (duplicated, #"invalid JSON at byte 68: member "user" given twice"#),
    ]

    @Test(arguments: 0..<2)
    func aCodeRepeatingAFieldIsRefused(code: Int) async throws {
        let (payload, reason) = Self.repeatedFieldCodes[code]
        let quoted = "'" + payload.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
        guard let out = try await sh("qrencode -o dup.png \(quoted) && $QR decode dup.png") else { return }
        #expect(out.status == 1)
        #expect(out.stdout.isEmpty)
        #expect(out.stderr.contains(reason), "\(out.stderr)")
        #expect(!out.stderr.contains(Self.secret))
    }
}

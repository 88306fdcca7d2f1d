import AstraTestSupport
import Foundation
import Testing

/// A line from outside cannot weaken how it is protected, through the built binaries:
/// a line naming a member twice is refused by every tool that reads lines (exit 64, the name
/// given); a code that weakens TLS is refused by `astra-qr decode` unless `--allow-insecure`;
/// a line with `tls_verify: false` needs the consumer's own `--insecure`. Nothing of the
/// line's password is in any error.
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

    /// Codes made by qrencode (the independent encoder), one per field that weakens TLS, in
    /// both payload forms: the reason, exit 1 and nothing on stdout by default (`--raw` too);
    /// with `--allow-insecure` the line, marked `insecure`.
    static let weakening: [(payload: String, reason: String, insecure: String)] = [
        ("astra1:u=1001;p=pw-Secret-42;d=127.0.0.1;t=tls;k=0",
         "turns TLS certificate verification off (tls_verify)", #"["tls_verify"]"#),
        ("astra1:u=1001;p=pw-Secret-42;d=127.0.0.1;t=tls;c=/etc/shadow",
         "names a local file as its CA (ca_file)", #"["ca_file"]"#),
        ("astra1:u=1001;p=pw-Secret-42;d=127.0.0.1;t=tls;h=evil.example",
         "verifies a name that is neither its domain nor its server (tls_server_name)", #"["tls_server_name"]"#),
        ("astra1:u=1001;p=pw-Secret-42;d=127.0.0.1;c=/etc/shadow;k=0",
         "names a local file as its CA (ca_file) and turns TLS certificate verification off (tls_verify)",
         #"["ca_file","tls_verify"]"#),
        (#"{"v":1,"user":"1001","password":"pw-Secret-42","domain":"127.0.0.1","transport":"wss","tls_verify":false}"#,
         "turns TLS certificate verification off (tls_verify)", #"["tls_verify"]"#),
        (#"{"v":1,"user":"1001","password":"pw-Secret-42","domain":"127.0.0.1","ca_file":"/etc/ssl/x.pem"}"#,
         "names a local file as its CA (ca_file)", #"["ca_file"]"#),
    ]

    static func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'" }

    @Test(arguments: 0..<weakening.count)
    func aCodeThatWeakensTLSIsRefusedUnlessAllowed(index: Int) async throws {
        let (payload, reason, insecure) = Self.weakening[index]
        guard let refused = try await sh("qrencode -o w.png \(Self.quoted(payload)) && $QR decode w.png") else { return }
        let refusal = "astra-qr: w.png: refused: the code \(reason); pass --allow-insecure to accept it (test rigs only)\n"
        #expect(refused.status == 1)
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderr == refusal)
        let raw = try #require(try await sh("$QR decode --raw w.png"))
        #expect(raw.status == 1 && raw.stdout.isEmpty && raw.stderr == refusal)
        let allowed = try #require(try await sh("$QR decode --allow-insecure w.png"))
        #expect(allowed.status == 0 && allowed.stderr.isEmpty)
        #expect(allowed.stdout.hasSuffix(#","insecure":"# + insecure + "}\n"), "\(allowed.stdout)")
        #expect(!refused.stderr.contains(Self.secret) && !raw.stderr.contains(Self.secret))
    }

    /// The README's pipeline: a code that turns verification off does not register, whether
    /// astra-qr refuses it or a test rig let it through; astra-register's own --insecure does.
    @Test func thePipelineNeedsTheConsumersInsecure() async throws {
        let code = "astra1:u=1001;p=pw-Secret-42;d=127.0.0.1;s=127.0.0.1:1;t=tls;k=0"
        guard let made = try await sh("qrencode -o k.png \(Self.quoted(code))"), made.status == 0 else { return }
        let refusal = "the line turns TLS certificate verification off (tls_verify false); pass --insecure to allow it "
            + "(test rigs only)\n"
        let plain = try #require(try await sh("$QR decode k.png | $REG"))
        #expect(plain.status == 64)
        #expect(plain.stderr.contains("astra-qr: k.png: refused: the code turns TLS certificate verification off"))
        let rig = try #require(try await sh("$QR decode --allow-insecure k.png | $REG"))
        #expect(rig.status == 64 && rig.stdout.isEmpty)
        #expect(rig.stderr == "astra-register: " + refusal)
        let call = try #require(try await sh("$QR decode --allow-insecure k.png | $CALL dial sip:1003@127.0.0.1"))
        #expect(call.status == 64 && call.stderr == "astra-call: " + refusal)
        // With --insecure it goes on to connect: port 1 refuses, a network failure (3), not 64.
        let insecure = try #require(try await sh("$QR decode --allow-insecure k.png | $REG --insecure --timeout 5"))
        #expect(insecure.status == 3, "\(insecure.stderr)")
        #expect(insecure.stderr.contains("TLS certificate verification is OFF (--insecure)"))
        for out in [plain, rig, call, insecure] { #expect(!out.stderr.contains(Self.secret)) }
    }

    /// The same from a file and from a load file, and in astra-call answer.
    @Test func aLineFileCannotTurnVerificationOffAlone() async throws {
        let line = #"{"v":1,"user":"1001","password":"pw-Secret-42","domain":"127.0.0.1","transport":"tls","tls_verify":false}"#
        try (line + "\n").write(to: dir.appendingPathComponent("k.json"), atomically: true, encoding: .utf8)
        let refusal = "the line turns TLS certificate verification off (tls_verify false); pass --insecure to allow it "
            + "(test rigs only)\n"
        guard let file = try await sh("$REG --line k.json") else { return }
        #expect(file.status == 64 && file.stderr == "astra-register: " + refusal)
        let load = try #require(try await sh("$REG --load k.json"))
        #expect(load.status == 64 && load.stderr == "astra-register: k.json:1: " + refusal)
        let answer = try #require(try await sh("$CALL answer --line k.json --timeout 1"))
        #expect(answer.status == 64 && answer.stderr == "astra-call: " + refusal)
    }
}

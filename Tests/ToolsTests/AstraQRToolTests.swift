import AstraTestSupport
import Foundation
import Testing

/// astra-qr end to end through the built binary: real pipelines with the neighbours (zbarimg,
/// qrencode), the documented exit codes with one stderr line each, and no secret on stderr.
@Suite struct AstraQRToolTests {
    struct Outcome {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    let dir: URL
    let line =
        #"{"v":1,"display_name":"Alice","user":"1001","password":"pw-Secret-42","domain":"example.com","#
        + #""server":"pbx.example.com:8089","transport":"wss","ws_path":"/ws"}"#

    init() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("astra-qr-tool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try (line + "\n").write(to: dir.appendingPathComponent("line.json"), atomically: true, encoding: .utf8)
        try "correct horse\n".write(to: dir.appendingPathComponent("pass.txt"), atomically: true, encoding: .utf8)
    }

    /// Runs `script` with `sh -e` in the scratch directory, `$QR` naming the built astra-qr.
    func sh(_ script: String) async throws -> Outcome? {
        guard let qr = BuiltTool(name: "astra-qr").executable() else { return nil }
        let child = try await ChildProcess.run(
            URL(fileURLWithPath: "/bin/sh"), ["-c", script], directory: dir, environment: ["QR": qr.path])
        return Outcome(status: child.status, stdout: child.text, stderr: child.stderr)
    }

    @Test func encodeThenZbarimgThenDecodeGivesTheSameLine() async throws {
        guard let made = try await sh(#"$QR encode --line line.json -o line.png"#) else { return }
        #expect(made.status == 0)
        #expect(
            made.stderr == "astra-qr: warning: the code holds the SIP password in clear; anyone who sees it can "
                + "use the line (seal it with --passphrase or --key-file)\n")
        // The code holds the password: the file is its owner's only (0600), even if it existed.
        let mode = try #require(try await sh("stat -c %a line.png; touch old.png; chmod 644 old.png; "
            + "$QR encode --line line.json -o old.png 2>/dev/null; stat -c %a old.png"))
        #expect(mode.stdout == "600\n600\n")
        let zbar = try #require(try await sh("zbarimg -q --raw -Sbinary line.png"))
        #expect(zbar.stdout == "astra1:n=Alice;u=1001;p=pw-Secret-42;d=example.com;s=pbx.example.com:8089;t=wss;w=/ws")
        let decoded = try #require(try await sh("$QR decode line.png"))
        #expect(decoded.status == 0 && decoded.stderr.isEmpty)
        #expect(decoded.stdout == line + "\n")
    }

    @Test func pipelineThroughStdoutAndStdin() async throws {
        guard let out = try await sh(#"cat line.json | $QR encode --expires 60 -o - 2>/dev/null | $QR decode -"#) else {
            return
        }
        #expect(out.status == 0)
        #expect(out.stdout.contains(#""expires":60"#) && out.stdout.contains(#""user":"1001""#))
    }

    @Test func qrencodeOutputDecodes() async throws {
        guard let out = try await sh(#"qrencode -o q.png 'sip:1002@pbx.example.com' && $QR decode q.png"#) else { return }
        #expect(out.status == 0)
        #expect(out.stdout == #"{"v":1,"user":"1002","domain":"pbx.example.com","transport":"udp"}"# + "\n")
    }

    @Test func sealedCodes() async throws {
        guard let made = try await sh(#"$QR encode --line line.json --passphrase-file pass.txt -o s.png"#) else { return }
        #expect(made.status == 0 && made.stderr.isEmpty)
        let right = try #require(try await sh("$QR decode --passphrase-file pass.txt s.png"))
        #expect(right.status == 0 && right.stdout == line + "\n")
        let wrong = try #require(try await sh("$QR decode --passphrase nope s.png"))
        #expect(wrong.status == 1 && wrong.stdout.isEmpty)
        #expect(
            wrong.stderr == "astra-qr: s.png: wrong passphrase or key, the sealed password did not open "
                + "(AES-256-GCM authentication failed)\n")
    }

    @Test(arguments: [
        (
            "echo 'not a picture' > x.png && $QR decode x.png", Int32(64),
            "astra-qr: x.png: not an image (expected PNG, PGM or PPM)\n"
        ),
        (
            "$QR encode --line line.json -o l.png 2>/dev/null && head -c 200 l.png > cut.png && $QR decode cut.png", 64,
            "astra-qr: cut.png: PNG: read beyond end of data\n"
        ),
        (
            "printf 'P5\\n64 64\\n255\\n' > blank.pgm && head -c 4096 /dev/zero | tr '\\000' '\\377' >> blank.pgm "
                + "&& $QR decode blank.pgm", 4, "astra-qr: blank.pgm: no QR code found in the image\n"
        ),
        (
            "qrencode -o hello.png 'hello world' && $QR decode hello.png", 1,
            "astra-qr: hello.png: the code holds text of 11 characters, which is not a line (expected astra1:…, a line JSON "
                + "object or a sip: URI)\n"
        ),
        ("$QR decode", 64, "astra-qr: missing argument <file>\n"),
    ])
    func badInputHasOneLineAndTheDocumentedExitCode(script: String, status: Int32, stderr: String) async throws {
        guard let out = try await sh(script) else { return }
        #expect(out.status == status)
        #expect(out.stderr == stderr)
        #expect(out.stdout.isEmpty)
    }

    @Test func passwordsNeverReachStderr() async throws {
        guard
            let out = try await sh(
                #"$QR encode --line line.json -v -o a.png; $QR decode -v a.png >/dev/null; "#
                    + #"$QR encode --user 1001 --domain example.com --password pw-Secret-42 --server bad:0 -o b.png; "#
                    + #"$QR decode --passphrase pw-Secret-42 a.png > /dev/null; $QR decode --format text a.png"#)
        else { return }
        #expect(!out.stderr.contains("pw-Secret-42"))
        #expect(!out.stdout.contains("pw-Secret-42"))
        #expect(out.stdout.contains("<redacted>"))
    }

    /// CONTRACT TEST through the binary: `astra-qr lines` against the platform contract server
    /// (Tests/ProvisioningTests/Fixtures/platform_contract_server.py) → encode → decode.
    @Test func linesFromTheContractServerPipeIntoEncode() async throws {
        let script = RepositoryRoot.appending(
            "Tests/ProvisioningTests/Fixtures/platform_contract_server.py")
        let portFile = dir.appendingPathComponent("port")
        // Its output goes to ChildProcess's files, not the runner's pipes (a server holding the
        // runner's stderr open would keep `swift test` waiting); SIGKILL by pid, reaped by the poll.
        let server = try ChildProcess.start(command: "python3", [script.path, portFile.path])
        defer { server.signal(SIGKILL) }
        // The server writes its port once it listens; a Python start on two busy cores can take
        // seconds (the same bound as ContractServer's).
        let written = await eventuallySome(timeout: .seconds(60), every: .milliseconds(25)) { () -> String? in
            let text = (try? String(contentsOf: portFile, encoding: .utf8)) ?? ""
            return text.hasSuffix("\n") ? text.trimmingCharacters(in: .whitespacesAndNewlines) : nil
        }
        let port = try #require(written, "the contract server wrote no port: \(server.stderrSoFar)")
        try "fb-good\n".write(to: dir.appendingPathComponent("fb.txt"), atomically: true, encoding: .utf8)
        try "fb-unauthorized\n".write(to: dir.appendingPathComponent("bad.txt"), atomically: true, encoding: .utf8)
        guard let lines = try await sh("$QR lines --api http://127.0.0.1:\(port) --firebase-token-file fb.txt") else {
            return
        }
        #expect(lines.status == 0 && lines.stderr.isEmpty)
        #expect(lines.stdout.split(separator: "\n").count == 2)
        let piped = try #require(
            try await sh(
                "$QR lines --api http://127.0.0.1:\(port) --firebase-token-file fb.txt | head -1 "
                    + "| $QR encode --passphrase s3 -o l.png && $QR decode --passphrase s3 l.png"))
        #expect(piped.status == 0)
        #expect(piped.stdout == String(lines.stdout.split(separator: "\n")[0]) + "\n")
        let refused = try #require(try await sh("$QR lines --api http://127.0.0.1:\(port) --firebase-token-file bad.txt"))
        #expect(refused.status == 1 && refused.stdout.isEmpty)
        #expect(
            refused.stderr
                == "astra-qr: POST /api/v1/auth/user-login: HTTP 401, the Firebase token was refused\n")
        let down = try #require(try await sh("$QR lines --api http://127.0.0.1:1 --firebase-token-file fb.txt"))
        #expect(down.status == 3)
    }
}

import AstraTestSupport
import Foundation
import Testing

import enum SIPCore.AstraVersion

/// Golden tests over the built binaries (swift-argument-parser's `AssertExecuteCommand`):
/// `--help`, `--version`, bad options (64, one line on stderr), unimplemented commands (70, no
/// output), and the generated manual.
@Suite struct ToolsGoldenTests {
    static let version = AstraVersion.current

    static let common: [GoldenCase] = ["astra-register", "astra-call", "astra-qr", "astra-pushsim", "astra-trace"].flatMap { tool in
        [
            GoldenCase(tool: tool, arguments: ["--help"], status: 0, stdout: .golden("\(tool).help.txt"), stderr: ""),
            GoldenCase(tool: tool, arguments: ["-h"], status: 0, stdout: .golden("\(tool).help.txt"), stderr: ""),
            GoldenCase(
                tool: tool, arguments: ["--version"], status: 0, stdout: .exact("\(tool) \(version)\n"), stderr: ""),
            GoldenCase(
                tool: tool, arguments: ["--bogus"], status: 64, stdout: .exact(""),
                stderr: "\(tool): unknown option --bogus\n"),
            GoldenCase(tool: tool, arguments: ["--generate-manual"], status: 0, stdout: .doc("\(tool).1"), stderr: ""),
            GoldenCase(
                tool: tool, arguments: ["--generate-manual=markdown"], status: 0, stdout: .doc("\(tool).md"), stderr: ""
            ),
        ]
    }

    static let register: [GoldenCase] = [
        GoldenCase(
            tool: "astra-register", arguments: [], status: 64, stdout: .exact(""),
            stderr: "astra-register: no line given: pass sip:USER@DOMAIN, --user and --domain, or --line FILE\n"),
        GoldenCase(
            tool: "astra-register",
            arguments: ["--password-file", "pw", "--transport", "wss", "sip:alice@pbx.example.com"],
            status: 64, stdout: .exact(""), stderr: "astra-register: cannot read 'pw': No such file or directory\n"),
        GoldenCase(
            tool: "astra-register", arguments: ["--load", "lines.jsonl", "--concurrency", "5"], status: 64,
            stdout: .exact(""), stderr: "astra-register: cannot read 'lines.jsonl': No such file or directory\n"),
        GoldenCase(
            tool: "astra-register", arguments: ["--load", "-", "--concurrency", "0"], status: 64,
            stdout: .exact(""), stderr: "astra-register: option --concurrency: 0 is out of range 1…10000\n"),
        GoldenCase(
            tool: "astra-register", arguments: ["--transport", "sctp"], status: 64, stdout: .exact(""),
            stderr: "astra-register: option --transport: expected one of udp, tcp, tls, ws, wss, got 'sctp'\n"),
        GoldenCase(
            tool: "astra-register", arguments: ["--expires"], status: 64, stdout: .exact(""),
            stderr: "astra-register: option --expires: missing value\n"),
        GoldenCase(
            tool: "astra-register", arguments: ["a", "b"], status: 64, stdout: .exact(""),
            stderr: "astra-register: unexpected argument 'b'\n"),
    ]

    static let call: [GoldenCase] = [
        GoldenCase(
            tool: "astra-call", arguments: ["dial", "--help"], status: 0, stdout: .golden("astra-call.dial.help.txt"),
            stderr: ""),
        GoldenCase(
            tool: "astra-call", arguments: ["help", "answer"], status: 0, stdout: .golden("astra-call.answer.help.txt"),
            stderr: ""),
        GoldenCase(
            tool: "astra-call", arguments: ["load", "--help"], status: 0, stdout: .golden("astra-call.load.help.txt"),
            stderr: ""),
        GoldenCase(
            tool: "astra-call", arguments: ["load", "--user", "1001", "--domain", "example.com"], status: 64,
            stdout: .exact(""), stderr: "astra-call: load needs a target or --targets FILE\n"),
        GoldenCase(
            tool: "astra-call", arguments: ["dial", "--tone", "440", "sip:1002@pbx.example.com"], status: 64,
            stdout: .exact(""),
            stderr: "astra-call: no line given: pass sip:USER@DOMAIN, --user and --domain, or --line FILE\n"),
        GoldenCase(
            tool: "astra-call", arguments: ["answer", "--after", "2", "--echo"], status: 64, stdout: .exact(""),
            stderr: "astra-call: no line given: pass sip:USER@DOMAIN, --user and --domain, or --line FILE\n"),
        GoldenCase(
            tool: "astra-call", arguments: ["dial", "--dtmf", "12x", "--user", "1001", "--domain", "example.com", "1002"],
            status: 64, stdout: .exact(""), stderr: "astra-call: --dtmf: '12x' has a non-DTMF key\n"),
        GoldenCase(
            tool: "astra-call",
            arguments: ["dial", "--media", "webrtc", "--srtp", "sdes", "--user", "1001", "--domain", "example.com", "1002"],
            status: 64, stdout: .exact(""),
            stderr: "astra-call: --srtp sdes contradicts --media webrtc (DTLS-SRTP)\n"),
        GoldenCase(
            tool: "astra-call", arguments: ["dial", "--media", "rtp", "--ice", "--user", "1001", "--domain", "x.org", "1002"],
            status: 64, stdout: .exact(""), stderr: "astra-call: --media rtp contradicts --srtp dtls / --ice\n"),
        GoldenCase(
            tool: "astra-call",
            arguments: ["dial", "--srtp", "dtls", "--sdp-port", "4000", "--user", "1001", "--domain", "x.org", "1002"],
            status: 64, stdout: .exact(""),
            stderr: "astra-call: --sdp-port does not apply to --media webrtc (the ICE candidates carry the port)\n"),
        GoldenCase(
            tool: "astra-call",
            arguments: ["dial", "--stun", "127.0.0.1", "--user", "1001", "--domain", "x.org", "1002"],
            status: 64, stdout: .exact(""),
            stderr: "astra-call: --stun needs WebRTC media (dial: --media webrtc; answer: webrtc or auto)\n"),
        GoldenCase(
            tool: "astra-call",
            arguments: ["answer", "--media", "rtp", "--ice-restart-after", "1", "--user", "1001", "--domain", "x.org"],
            status: 64, stdout: .exact(""),
            stderr:
                "astra-call: --ice-restart-after needs WebRTC media (dial: --media webrtc; answer: webrtc or auto)\n"
        ),
        GoldenCase(
            tool: "astra-call",
            arguments: ["dial", "--ice", "--stun", "[::1", "--user", "1001", "--domain", "x.org", "1002"],
            status: 64, stdout: .exact(""), stderr: "astra-call: --stun: '[::1' is not HOST[:PORT]\n"),
        GoldenCase(
            tool: "astra-call",
            arguments: ["dial", "--ice", "--turn", "turn:127.0.0.1", "--user", "1001", "--domain", "x.org", "1002"],
            status: 64, stdout: .exact(""), stderr: "astra-call: --turn needs --turn-user\n"),
        GoldenCase(
            tool: "astra-call",
            arguments: ["dial", "--ice", "--turn", "turns:127.0.0.1", "--user", "1001", "--domain", "x.org", "1002"],
            status: 64, stdout: .exact(""),
            stderr: "astra-call: --turn: turns: (TLS) is not supported; use turn:HOST[:PORT]\n"),
        GoldenCase(
            tool: "astra-call",
            arguments: ["dial", "--ice", "--ice-policy", "relay", "--user", "1001", "--domain", "x.org", "1002"],
            status: 64, stdout: .exact(""), stderr: "astra-call: --ice-policy relay needs --turn\n"),
        GoldenCase(
            tool: "astra-call", arguments: ["dial", "--media", "srtp", "--user", "1001", "--domain", "x.org", "1002"],
            status: 64, stdout: .exact(""),
            stderr: "astra-call: option --media: expected one of auto, rtp, webrtc, got 'srtp'\n"),
        GoldenCase(
            tool: "astra-call", arguments: [], status: 64, stdout: .exact(""),
            stderr: "astra-call: missing subcommand (expected one of dial, answer, load; see 'astra-call --help')\n"),
        GoldenCase(
            tool: "astra-call", arguments: ["dial"], status: 64, stdout: .exact(""),
            stderr: "astra-call: missing argument <target>\n"),
        GoldenCase(
            tool: "astra-call", arguments: ["dial", "--duration", "ten", "x"], status: 64, stdout: .exact(""),
            stderr: "astra-call: option --duration: expected a number in 0.001…86400, got 'ten'\n"),
    ]

    static let qr: [GoldenCase] = [
        GoldenCase(
            tool: "astra-qr", arguments: ["encode", "--help"], status: 0, stdout: .golden("astra-qr.encode.help.txt"),
            stderr: ""),
        GoldenCase(
            tool: "astra-qr", arguments: ["decode", "-h"], status: 0, stdout: .golden("astra-qr.decode.help.txt"),
            stderr: ""),
        GoldenCase(
            tool: "astra-qr", arguments: ["help", "lines"], status: 0, stdout: .golden("astra-qr.lines.help.txt"),
            stderr: ""),
        GoldenCase(
            tool: "astra-qr", arguments: ["encode", "-t", "JPG"], status: 64, stdout: .exact(""),
            stderr: "astra-qr: option -t: expected one of PNG, SVG, ANSI, UTF8, ASCII, PGM, got 'JPG'\n"),
        GoldenCase(
            tool: "astra-qr", arguments: ["encode", "-tutf8", "-o", "-", "--user", "alice"], status: 64,
            stdout: .exact(""), stderr: "astra-qr: line: missing domain (domain)\n"),
        GoldenCase(
            tool: "astra-qr", arguments: ["decode", "/nonexistent/a.png"], status: 64, stdout: .exact(""),
            stderr: "astra-qr: /nonexistent/a.png: cannot read: No such file or directory\n"),
        GoldenCase(
            tool: "astra-qr", arguments: ["decode"], status: 64, stdout: .exact(""),
            stderr: "astra-qr: missing argument <file>\n"),
        GoldenCase(
            tool: "astra-qr", arguments: ["lines", "--api", "https://api.example.com"], status: 64, stdout: .exact(""),
            stderr: "astra-qr: missing option --firebase-token-file FILE\n"),
        GoldenCase(
            tool: "astra-qr", arguments: ["scan"], status: 64, stdout: .exact(""),
            stderr: "astra-qr: unknown subcommand 'scan' (expected one of encode, decode, lines)\n"),
    ]

    static let pushsim: [GoldenCase] = [
        GoldenCase(
            tool: "astra-pushsim", arguments: ["run", "--help"], status: 0,
            stdout: .golden("astra-pushsim.run.help.txt"), stderr: ""),
        GoldenCase(
            tool: "astra-pushsim", arguments: ["run", "dead-phone"], status: 0,
            stdout: .golden("astra-pushsim.run.dead-phone.jsonl"), stderr: ""),
        GoldenCase(
            tool: "astra-pushsim", arguments: ["run", "answer-before-invite", "--policy", "naive", "--format", "text"],
            status: 1, stdout: .golden("astra-pushsim.run.answer-before-invite.naive.txt"),
            stderr: "astra-pushsim: answer-before-invite with naive: broke R1, R5\n"),
        GoldenCase(
            tool: "astra-pushsim", arguments: ["check"], status: 0, stdout: .golden("astra-pushsim.check.jsonl"),
            stderr: ""),
        GoldenCase(
            tool: "astra-pushsim", arguments: ["check", "--policy", "naive"], status: 1,
            stdout: .golden("astra-pushsim.check.naive.jsonl"),
            stderr: "astra-pushsim: check: policy naive broke R1, R2, R5, R6, "
                + "GRANT in 45 of 54 scenarios: killed, background, locked, reconnect-stored, token-rotated, "
                + "unknown-origin, cancel-before-wake, cancel-after-ack, answer-before-invite, "
                + "answer-then-gone, decline-before-invite, no-invite, strike-out, sealed-call, "
                + "sealed-unknown-gateway, sealed-wrong-call-id, sealed-tampered, sealed-missing-key, "
                + "sealed-late, sealed-token-revoked, sealed-grant-renewal, sealed-grant-expired, "
                + "killed@field, background@field, locked@field, reconnect@field, reconnect-stored@field, "
                + "token-rotated@field, unknown-origin@field, cancel-before-wake@field, "
                + "cancel-after-ack@field, answer-before-invite@field, answer-then-gone@field, "
                + "decline-before-invite@field, no-invite@field, strike-out@field, sealed-call@field, "
                + "sealed-unknown-gateway@field, sealed-wrong-call-id@field, sealed-tampered@field, "
                + "sealed-missing-key@field, sealed-late@field, sealed-token-revoked@field, "
                + "sealed-grant-renewal@field, sealed-grant-expired@field\n"),
        GoldenCase(
            tool: "astra-pushsim", arguments: ["fuzz", "--seed", "7", "--count", "10"], status: 0,
            stdout: .exact(
                "{\"event\":\"verdict\",\"t\":0,\"command\":\"fuzz\",\"policy\":\"correct\",\"seed\":\"7\","
                    + "\"count\":10,\"cases_run\":10,\"events\":287,\"failing_cases\":0,\"ok\":true}\n"),
            stderr: ""),
        GoldenCase(
            tool: "astra-pushsim", arguments: ["run", "no-such-scenario"], status: 64, stdout: .exact(""),
            stderr: "astra-pushsim: no-such-scenario: not a built-in scenario (killed, background, foreground, "
                + "locked, offline, reconnect, reconnect-stored, dead-phone, token-rotated, unknown-origin, "
                + "cancel-before-wake, cancel-after-ack, answer-before-invite, answer-then-gone, decline-before-invite, no-invite, "
                + "strike-out, message, sealed-call, sealed-unknown-gateway, sealed-wrong-call-id, sealed-tampered, "
                + "sealed-missing-key, sealed-late, sealed-token-revoked, sealed-grant-renewal, sealed-grant-expired), and cannot read 'no-such-scenario': No such file or directory\n"),
        GoldenCase(
            tool: "astra-pushsim", arguments: ["run", "killed", "--policy", "sloppy"], status: 64, stdout: .exact(""),
            stderr: "astra-pushsim: option --policy: expected one of correct, naive, got 'sloppy'\n"),
        GoldenCase(
            tool: "astra-pushsim", arguments: ["fuzz", "--count", "many"], status: 64, stdout: .exact(""),
            stderr: "astra-pushsim: option --count: expected an integer in 0…1000000, got 'many'\n"),
    ]

    static let goldenDirectory = RepositoryRoot.appending("Tests/ToolsTests/Golden")
    static let updating = ProcessInfo.processInfo.environment["UPDATE_GOLDEN"] == "1"

    @Test(arguments: common + register + call + qr + pushsim)
    func matchesGolden(_ testCase: GoldenCase) async throws {
        guard let result = try await BuiltTool(name: testCase.tool).run(testCase.arguments) else { return }
        #expect(result.status == testCase.status)
        #expect(result.stderr == testCase.stderr)
        switch testCase.stdout {
        case .exact(let text):
            #expect(result.stdout == text)
        case .golden(let name):
            let url = Self.goldenDirectory.appendingPathComponent(name)
            if Self.updating {
                try FileManager.default.createDirectory(at: Self.goldenDirectory, withIntermediateDirectories: true)
                try result.stdout.write(to: url, atomically: true, encoding: .utf8)
            }
            let expected = try String(contentsOf: url, encoding: .utf8)
            #expect(result.stdout == expected, "stdout differs from Golden/\(name) (UPDATE_GOLDEN=1 rewrites it)")
        case .doc(let name):
            let url = RepositoryRoot.appending("docs/man").appendingPathComponent(name)
            let expected = try String(contentsOf: url, encoding: .utf8)
            #expect(result.stdout == expected, "docs/man/\(name) is stale: run scripts/gen-man.sh")
        }
    }

    @Test func errorsAreOneLine() throws {
        for testCase in Self.common + Self.register + Self.call + Self.qr + Self.pushsim where testCase.status != 0 {
            #expect(testCase.stderr.filter { $0 == "\n" }.count == 1, "\(testCase.testDescription)")
        }
    }
}

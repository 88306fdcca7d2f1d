import AstraTestSupport
import Foundation
import Testing

@testable import SIPTransport

extension KamailioPeer {
    /// Text mode (`--format text`, what a terminal gets): one verdict line per registration,
    /// a call summary block, failures in words with the fix. JSON mode is left as it was (the
    /// other suites read it).
    @Suite struct TextModeKamailioTests {
        typealias H = CallToolHarness

        @Test func registerVerdictLines() async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            let (ok, out, err) = try await ToolProcess.run(
                "astra-register", ["--format", "text"] + H.line(server, .wss, user: "1041"))
            #expect(ok == 0 && err.isEmpty, "\(err)")
            let line = out.trimmingCharacters(in: .newlines)
            #expect(out.filter { $0 == "\n" }.count == 1, "one line: \(out)")
            #expect(line.range(
                of: #"^✔ sip:1041@127\.0\.0\.1 registered over WSS in \d+ ms \(connect \d+, register \d+\), expires 300 s \(asked 3600 s\), digest MD5$"#,
                options: .regularExpression) != nil, "\(line)")
            let (rejected, bad, badErr) = try await ToolProcess.run(
                "astra-register",
                ["--format", "text", "--password", "wrong", "--server", "127.0.0.1:\(server.port(for: .tcp))",
                 "--transport", "tcp", "sip:1041@127.0.0.1"])
            #expect(rejected == 1 && badErr.isEmpty)
            #expect(bad == "✘ sip:1041@127.0.0.1 not registered over TCP: the registrar refused the credentials "
                + "(401 Unauthorized): check the password (--password-file) and the authentication user (--auth-user)\n")
            // The certificate case names the fix: --ca-file.
            let (untrusted, text, _) = try await ToolProcess.run(
                "astra-register",
                ["--format", "text", "--password", "astra1041", "--server", "127.0.0.1:\(server.port(for: .wss))",
                 "--transport", "wss", "sip:1041@127.0.0.1"])
            #expect(untrusted != 0)
            #expect(text.hasPrefix("✘ sip:1041@127.0.0.1 not registered over WSS: the server's certificate is not trusted"))
            #expect(text.contains("pass --ca-file"))
            #expect(text.components(separatedBy: "--ca-file").count == 2, "the hint once: \(text)")
            // No internal names in words.
            for word in ["connectFailed", "certificateVerificationFailed", "badWAV"] { #expect(!text.contains(word)) }
            for said in [out, bad, text] { #expect(!said.contains("astra1041") && !said.contains("wrong"), "no password") }
        }

        /// With -v (and with --keep) the events come first, each a sentence — the unregistration at
        /// the end included — then the verdict.
        @Test func eventsInWordsWithVerbose() async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            let (ok, out, _) = try await ToolProcess.run(
                "astra-register", ["--format", "text", "-v"] + H.line(server, .tcp, user: "1046"))
            #expect(ok == 0)
            let lines = out.split(separator: "\n").map { String($0.drop { $0 != "]" }.dropFirst(2)) }
            #expect(
                lines.first?.hasPrefix("connected to tcp://127.0.0.1:\(server.port(for: .tcp)) over TCP from 127.0.0.1:")
                    == true, "\(out)")
            #expect(
                Array(lines.dropFirst().dropLast()) == [
                    "REGISTER sent (expires 3600 s)", "challenged (401, digest MD5): answering with the credentials",
                    "REGISTER sent (expires 3600 s)", "registered sip:1046@127.0.0.1, expires 300 s",
                    "unregistered (the binding is removed)",
                ], "\(out)")
            #expect(out.split(separator: "\n").last?.hasPrefix("✔ sip:1046@127.0.0.1 registered over TCP in ") == true)
            #expect(!out.contains("="), "no key=value dump: \(out)")
            #expect(!out.contains("astra1046"), "no password in words")
        }

        /// Load mode: a verdict line per line of the file and the summary in words, over UDP
        /// (one socket for every line) and TCP (an endpoint per line).
        @Test(arguments: [TransportKind.udp, .tcp]) func loadModeVerdicts(_ transport: TransportKind) async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            let path = NSTemporaryDirectory() + "astra-load-text-\(UUID().uuidString).jsonl"
            defer { try? FileManager.default.removeItem(atPath: path) }
            let at = "127.0.0.1:\(server.port(for: transport))"
            try (#"{"v":1,"user":"1047","password":"astra1047","domain":"127.0.0.1","server":"\#(at)","transport":"\#(transport.rawValue)"}"#
                + "\n"
                + #"{"v":1,"user":"1048","password":"nope","domain":"127.0.0.1","server":"\#(at)","transport":"\#(transport.rawValue)"}"#
                + "\n").write(toFile: path, atomically: true, encoding: .utf8)
            let (status, out, err) = try await ToolProcess.run("astra-register", ["--format", "text", "--load", path])
            #expect(status == 1, "stdout: \(out) stderr: \(err)")
            let lines = out.split(separator: "\n").map { String($0.drop { $0 != "]" }.dropFirst(2)) }.sorted()
            #expect(lines.count == 3, "\(out)")
            #expect(lines.contains { $0.range(of: #"^✔ sip:1047@127\.0\.0\.1 registered in \d+\.\d ms$"#, options: .regularExpression) != nil }, "\(out)")
            #expect(lines.contains("✘ sip:1048@127.0.0.1 not registered: credentials rejected: 401 Unauthorized"), "\(out)")
            #expect(lines.contains { $0.hasPrefix("2 lines, 2 started, 2 done: 1 registered, 1 failed (completed) in ") && $0.contains("; latency p50 ") }, "\(out)")
            #expect(!out.contains("=") && !out.contains("nope") && !out.contains("astra1047"), "\(out)")
        }

        @Test func connectionRefusedInWords() async throws {
            let refusing = try RefusingTCPPort()
            let port = refusing.port
            defer { withExtendedLifetime(refusing) {} }
            let (status, out, _) = try await ToolProcess.run(
                "astra-register",
                ["--format", "text", "--timeout", "2", "--server", "127.0.0.1:\(port)", "--transport", "tcp",
                 "sip:1@127.0.0.1"])
            #expect(status == 3)
            #expect(out == "✘ sip:1@127.0.0.1 not registered over TCP: cannot connect to 127.0.0.1:\(port) over TCP "
                + "(connection refused): is the server running, and is that its tcp port? (--server HOST:PORT, --transport)\n")
        }

        @Test func callSummaryBlock() async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            let callee = try await H.callee(server, .udp, user: "1043", [])
            let caller = try H.dial(server, .wss, user: "1042", to: "1043", ["--format", "text", "--duration", "1.5"])
            #expect(await caller.exitStatus(within: .seconds(20)) == 0, "\(caller.stderr)")
            #expect(await callee.exitStatus(within: .seconds(10)) == 0)
            let out = caller.stdout
            #expect(out.contains("] answered: PCMA, RTP, DTMF as RFC 4733 events\n"), "\(out)")
            #expect(!out.contains("="), "no key=value dump: \(out)")
            let block = try #require(out.components(separatedBy: "Call summary\n").last)
            let labels = block.split(separator: "\n").map { $0.split(separator: " ").first.map(String.init) ?? "" }
            #expect(labels == ["result", "media", "duration", "packets", "jitter", "MOS", "RTT"], "\(block)")
            #expect(block.contains("result    completed: we hung up"))
            #expect(block.range(of: #"packets   sent \d+ · received \d+ · lost \d+ \(\d+\.\d %\)"#, options: .regularExpression) != nil)
            #expect(caller.stderr.isEmpty)
        }

        @Test func busyInTheSummary() async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            let callee = try await H.callee(server, .udp, user: "1045", ["--reject", "486"])
            let caller = try H.dial(server, .wss, user: "1044", to: "1045", ["--format", "text"])
            #expect(await caller.exitStatus(within: .seconds(20)) == 1)
            _ = await callee.exitStatus(within: .seconds(10))
            #expect(caller.stdout.hasSuffix("Call summary\n  result    failed: the callee is busy (486)\n"), "\(caller.stdout)")
            #expect(caller.stderr.isEmpty, "the summary says it once: \(caller.stderr)")
            // Nobody registered as 1099: Kamailio's 404 in words.
            let nobody = try H.dial(server, .tcp, user: "1044", to: "1099", ["--format", "text"])
            #expect(await nobody.exitStatus(within: .seconds(20)) == 1)
            #expect(
                nobody.stdout.hasSuffix(
                    "Call summary\n  result    failed: the callee is unknown or not registered (404 Not Found)\n"),
                "\(nobody.stdout)")
        }
    }
}

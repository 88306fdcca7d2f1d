import Foundation
import Media
import Testing

@testable import SIPTransport

extension KamailioPeer {
    /// The library examples (Examples/library): three programs that use AstraSIP's library
    /// products from a package of their own, built as a client builds them and run against the
    /// project's Kamailio (docs/decisions.md D37).
    @Suite struct LibraryExamplesTests {
        typealias H = CallToolHarness

        func example(_ name: String) async throws -> String { try await ExampleBuild.shared.binDirectory() + "/" + name }

        static func passwordFile(_ password: String) throws -> String {
            let path = NSTemporaryDirectory() + "astra-example-pw-\(UUID().uuidString)"
            try Data((password + "\n").utf8).write(to: URL(fileURLWithPath: path))
            return path
        }

        /// sip-message prints the parsed message byte-exact, then the proxy edit: one hop less,
        /// our Via on top (RFC 3261 §16.6). Garbage gets one line on stderr and exit 1.
        @Test func sipMessageParsesPrintsByteExactAndEdits() async throws {
            let text =
                "INVITE sip:1002@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 10.0.0.1:5060;branch=z9hG4bK-1;rport\r\n"
                + "Max-Forwards: 70\r\nFrom:  <sip:1001@127.0.0.1>;tag=a1\r\nTo: <sip:1002@127.0.0.1>\r\n"
                + "Call-ID: example-1\r\nCSeq: 1 INVITE\r\nx-Odd-Case:  kept   as written\r\nContent-Length: 0\r\n\r\n"
            let path = NSTemporaryDirectory() + "astra-example-\(UUID().uuidString).sip"
            defer { try? FileManager.default.removeItem(atPath: path) }
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            let (status, out, err) = try await ToolProcess.run(try await example("sip-message"), [path])
            #expect(status == 0, "\(err)")
            #expect(out.hasPrefix(text + "-- byte-exact: true\n"), "\(out)")
            #expect(out.contains("-- INVITE sip:1002@127.0.0.1 call-id example-1 via 10.0.0.1"), "\(out)")
            let edited = try #require(out.components(separatedBy: "-- edited:\n").last)
            #expect(edited.hasPrefix("INVITE sip:1002@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP proxy.example.com;"), "\(edited)")
            #expect(edited.contains("Max-Forwards: 69\r\n") && edited.contains("x-Odd-Case:  kept   as written\r\n"))
            try Data("HELLO\r\n\r\n".utf8).write(to: URL(fileURLWithPath: path))
            let (bad, _, badErr) = try await ToolProcess.run(try await example("sip-message"), [path])
            #expect(bad == 1)
            #expect(badErr.hasPrefix("sip-message: not a SIP message") && badErr.split(separator: "\n").count == 1, "\(badErr)")
        }

        /// verify-line registers with digest (401 challenge first), reports, unregisters, over UDP
        /// and TLS; a wrong password is refused (exit 1), and no password ever appears in output.
        @Test func verifyLineRegistersAndUnregisters() async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            let good = try Self.passwordFile("astra1021"), wrong = try Self.passwordFile("not-the-password-1021")
            defer { for p in [good, wrong] { try? FileManager.default.removeItem(atPath: p) } }
            for transport in [TransportKind.udp, .tls] {
                let (status, out, err) = try await ToolProcess.run(
                    try await example("verify-line"),
                    ["sip:1021@127.0.0.1", "127.0.0.1:\(server.port(for: transport))", transport.rawValue, good,
                     server.caFile])
                #expect(status == 0, "\(transport): \(err)")
                #expect(out.contains("challenged: 401"), "\(out)")
                #expect(out.contains("registered: sip:1021@127.0.0.1 for "), "\(out)")
                #expect(out.hasSuffix("unregistered\n"), "\(out)")
                #expect(err.isEmpty, "\(err)")
                #expect(!(out + err).contains("astra1021"))
            }
            let (status, out, err) = try await ToolProcess.run(
                try await example("verify-line"), ["sip:1021@127.0.0.1", "127.0.0.1:\(server.port(for: .tcp))", "tcp", wrong])
            #expect(status == 1, "\(out) \(err)")
            #expect(err.contains("verify-line: "), "\(err)")
            #expect(!(out + err).contains("not-the-password"))
            let (usage, _, usageErr) = try await ToolProcess.run(try await example("verify-line"), ["sip:1021@127.0.0.1"])
            #expect(usage == 64 && usageErr.hasPrefix("verify-line: usage:"))
        }

        /// call-and-record calls astra-call (answering with a 1000 Hz tone) through Kamailio and
        /// records what it hears: the tone, for most of the 3 s call; the WAV is 8 kHz mono.
        @Test func callAndRecordRecordsTheFarEnd() async throws {
            let server = try KamailioServer.start()
            defer { server.stop() }
            let wav = H.temporaryPath("example-rec"), password = try Self.passwordFile("astra1023")
            defer { for p in [wav, password] { try? FileManager.default.removeItem(atPath: p) } }
            let callee = try await H.callee(server, .udp, user: "1024", ["--tone", "1000", "--after", "0.2"])
            let (status, out, err) = try await ToolProcess.run(
                try await example("call-and-record"),
                ["sip:1023@127.0.0.1", "127.0.0.1:\(server.port(for: .udp))", "udp", password, "sip:1024@127.0.0.1",
                 wav, "3"])
            #expect(status == 0, "\(out) \(err)")
            #expect(out.contains("answered: PCMU") || out.contains("answered: PCMA"), "\(out)")
            #expect(out.contains("ended: "), "\(out)")
            #expect(await callee.exitStatus(within: .seconds(10)) == 0, "callee: \(callee.stderr)")
            #expect(H.field("reason", in: callee.events("ended").first ?? "") == "remote_hangup")
            let recording = try WAVFile.read(path: wav)
            #expect(recording.sampleRate == 8000)
            #expect(try H.toneSeconds(wav, frequency: 1000) >= 2.3, "\(out)")
        }
    }
}

/// Builds Examples/library once per test process, as a client builds it (`swift build
/// --package-path`; a no-op when run-tests.sh phase 1b built it), and remembers the outcome.
actor ExampleBuild {
    static let shared = ExampleBuild()
    private var outcome: Result<String, ToolProcessError>?

    func binDirectory() async throws -> String {
        if let outcome { return try outcome.get() }
        let package = KamailioServer.repoRoot + "/Examples/library"
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let swift =
            path.split(separator: ":").map { $0 + "/swift" }.first { FileManager.default.isExecutableFile(atPath: $0) }
            ?? "/opt/swift/usr/bin/swift"
        let (status, out, err) = try await ToolProcess.run(
            swift, ["build", "--package-path", package], timeout: .seconds(900))
        let result: Result<String, ToolProcessError> =
            status == 0
            ? .success(package + "/.build/debug")
            : .failure(ToolProcessError(message: "swift build --package-path \(package) failed: \(err)\(out)"))
        outcome = result
        return try result.get()
    }
}

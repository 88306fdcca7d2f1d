import AstraTestSupport
import Foundation
import Testing

/// `astra-wakegw --provider-capture FILE` is checked when the arguments are parsed: a path that
/// cannot be written (a directory, a missing parent, a place no one may create files) is one line
/// naming the option and exit 64, before any listener is opened. The real binary; a JWT key is
/// given so the capture path is the only thing wrong.
@Suite struct WakeGWCaptureToolTests {
    @Test func anUnwritableCapturePathIsRefusedAtParse() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("astra-capture-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyFile = directory.appendingPathComponent("jwt.key").path
        try Data((UUID().uuidString + UUID().uuidString + "\n").utf8).write(to: URL(fileURLWithPath: keyFile))
        let bad = [
            directory.path,  // a directory
            directory.appendingPathComponent("no-such-dir/capture.jsonl").path,  // a missing parent
            "/proc/astra-capture.jsonl",  // a directory no one (not even root) may create files in
        ]
        for path in bad {
            let run = try #require(
                try await BuiltTool(name: "astra-wakegw").run([
                    "--jwt-hs256-secret-file", keyFile, "--sip", "127.0.0.1:0", "--http-port", "0",
                    "--apns-device-port", "0", "--state", "memory", "--provider-capture", path,
                ]))
            #expect(run.status == 64, "\(path): exit \(run.status): \(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1, "\(path): \(run.stderr)")
            #expect(run.stderr.contains("--provider-capture \(path)"), "\(path): \(run.stderr)")
            #expect(run.stdout.isEmpty, "\(path): \(run.stdout)")
        }
        // A writable path passes the check (created 0600, empty): the parse goes on to the next
        // check, the emulator's certificate pair, which refuses a lone --emulator-cert-file.
        let good = directory.appendingPathComponent("capture.jsonl").path
        let run = try #require(
            try await BuiltTool(name: "astra-wakegw").run([
                "--jwt-hs256-secret-file", keyFile, "--provider-capture", good, "--emulator-cert-file", keyFile,
            ]))
        #expect(run.status == 64)
        #expect(run.stderr.contains("--emulator-key-file"), "\(run.stderr)")
        let attributes = try FileManager.default.attributesOfItem(atPath: good)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect((attributes[.size] as? Int) == 0)
    }
}

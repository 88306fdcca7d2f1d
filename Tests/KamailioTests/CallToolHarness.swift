import Foundation
import Media
import Testing

@testable import SIPTransport

/// Helpers for the astra-call real-peer tests: line arguments, the callee/caller pair, and the
/// recording analysis (Goertzel per 100 ms block: how long a tone was heard).
enum CallToolHarness {
    static func line(_ server: KamailioServer, _ transport: TransportKind, user: String) -> [String] {
        [
            "--password", "astra\(user)", "--server", "127.0.0.1:\(server.port(for: transport))",
            "--transport", transport.rawValue, "--ca-file", server.caFile, "--user", user, "--domain", "127.0.0.1",
        ]
    }

    static func temporaryPath(_ name: String) -> String {
        NSTemporaryDirectory() + "astra-call-\(name)-\(UUID().uuidString).wav"
    }

    /// Starts `astra-call answer` and waits until it is registered and waiting.
    static func callee(_ server: KamailioServer, _ transport: TransportKind, user: String, _ extra: [String])
        async throws -> ToolProcess
    {
        let process = try ToolProcess("astra-call", ["answer"] + line(server, transport, user: user) + extra)
        let ready = await process.waitFor(.seconds(10)) { !process.events("waiting").isEmpty }
        try #require(ready, "callee never registered: \(process.stderr)")
        return process
    }

    static func dial(
        _ server: KamailioServer, _ transport: TransportKind, user: String, to callee: String,
        _ extra: [String]
    ) throws -> ToolProcess {
        try ToolProcess(
            "astra-call", ["dial"] + line(server, transport, user: user) + extra + ["sip:\(callee)@127.0.0.1"])
    }

    /// Seconds of `frequency` in a WAV recording: 100 ms blocks with real signal whose energy is
    /// mostly at that frequency (a pure sine gives power/energy ≈ 0.5).
    static func toneSeconds(_ path: String, frequency: Double) throws -> Double {
        Goertzel.toneSeconds(try WAVFile.read(path: path).samples, frequency: frequency)
    }

    /// The value of `"key":` in a JSON line (string, number or bool), crude but enough here.
    static func field(_ key: String, in line: String) -> String? {
        guard let range = line.range(of: "\"\(key)\":") else { return nil }
        var rest = line[range.upperBound...]
        if rest.first == "\"" {
            rest = rest.dropFirst()
            return String(rest.prefix { $0 != "\"" })
        }
        return String(rest.prefix { $0 != "," && $0 != "}" })
    }
}

import Foundation
import Testing

/// Golden tests of the built `astra-pushsim` binary: stdout, stderr and exit code
/// (CONVENTIONS.md 12). Skipped when the binary has not been built next to the tests.
@Suite struct BinaryGoldenTests {
    static let binary: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.appendingPathComponent(".build/debug/astra-pushsim")
    }()
    static let exists = FileManager.default.isExecutableFile(atPath: binary.path)

    static func run(_ arguments: [String]) throws -> (out: String, err: String, code: Int32) {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (
            String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self),
            process.terminationStatus
        )
    }

    @Test(.enabled(if: exists)) func deadPhoneTimeline() throws {
        let result = try Self.run(["run", "dead-phone", "--format", "json"])
        #expect(result.code == 0)
        #expect(result.err.isEmpty)
        #expect(
            result.out == """
                {"event":"call_start","t":1000,"call":0}
                {"event":"qualify_sent","t":1000,"call":0}
                {"event":"qualify_timeout","t":1500,"call":0}
                {"event":"push_sent","t":1500,"call":0,"push_id":0,"content":"call","apns_expiration":0,"token":"redacted:2e0c73b3"}
                {"event":"apns_dropped","t":1500,"push_id":0}
                {"event":"ack_window_expired","t":3500,"call":0}
                {"event":"failover","t":3500,"call":0,"reason":"no_ack","after_ms":2500,"bound_ms":3000}
                {"event":"verdict","t":3500,"scenario":"dead-phone","policy":"correct","ok":true,"violations":0,"rules":[],"kinds":[],"outcomes":["failed_over"],"expected":["failed_over"],"events":4}

                """)
    }

    @Test(.enabled(if: exists), arguments: [("correct", Int32(0)), ("naive", 1)])
    func checkExitCode(_ policy: String, _ code: Int32) throws {
        let result = try Self.run(["check", "--policy", policy, "--format", "json"])
        #expect(result.code == code)
        if code == 0 {
            #expect(result.err.isEmpty)
        } else {
            #expect(
                result.err.hasPrefix("astra-pushsim: check: policy naive broke R1, R2, R5, R6 in 12 of 17 scenarios"))
        }
    }

    @Test(.enabled(if: exists)) func unknownScenarioIsUsage() throws {
        let result = try Self.run(["run", "no-such-scenario"])
        #expect(result.code == 64)
        #expect(result.out.isEmpty)
        #expect(result.err.hasPrefix("astra-pushsim: no-such-scenario: not a built-in scenario"))
    }
}

import AstraTestSupport
import Foundation
import Testing

/// `astra-pushsim check` on sealed pushes through the built binary, with the Python example
/// clients opening real AES-256-GCM blobs (Python `cryptography`): the correct client passes
/// every scenario (renewing its call grants once when less than 7 days remain), the one that
/// decrypts without verifying and never renews fails exactly the five sealed-fault scenarios on
/// R5 and the two grant scenarios on GRANT.
@Suite struct PushSimSealedToolTests {
    static let tool = BuiltTool(name: "astra-pushsim")
    static let examples = RepositoryRoot.appending("Examples/python-client").path
    static let faults = [
        "sealed-unknown-gateway", "sealed-wrong-call-id", "sealed-tampered", "sealed-missing-key", "sealed-late",
    ]
    static let grants = ["sealed-grant-renewal", "sealed-grant-expired"]

    static func check(_ client: String) async throws -> BuiltTool.Result? {
        try await tool.run([
            "check", "--delivery", "ideal", "--client-cmd", "python3 \(examples)/\(client)", "--client-timeout-ms",
            "60000",
        ])
    }

    @Test func correctPythonClientOpensAndPassesEverySealedScenario() async throws {
        guard let result = try await Self.check("correct_client.py") else { return }
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        let verdict = try #require(result.stdout.split(separator: "\n").last)
        #expect(verdict.contains(#""ok":true"#))
        for name in Self.faults + Self.grants + ["sealed-call"] {
            #expect(result.stdout.contains(#""scenario":"\#(name)","policy":"python-correct","delivery":"ideal","ok":true"#))
        }
    }

    /// The trusting client fails each sealed fault on R5, and — never renewing its call grants —
    /// both grant built-ins on GRANT `grant_not_renewed`.
    @Test func trustingPythonClientFailsEachSealedFaultOnR5() async throws {
        guard let result = try await Self.check("naive_sealed_client.py") else { return }
        #expect(result.status == 1)
        let verdict = try #require(result.stdout.split(separator: "\n").last)
        let failed = (Self.faults + Self.grants).map { "\"\($0)\"" }.joined(separator: ",")
        #expect(verdict.contains(#""failed":[\#(failed)],"rules":["R5","GRANT"]"#), "\(verdict)")
        #expect(result.stderr.contains("broke R5, GRANT in 7 of 27 scenarios"), "\(result.stderr)")
        for name in Self.grants {
            let line = try #require(result.stdout.split(separator: "\n").first { $0.contains(#""scenario":"\#(name)""#) })
            #expect(line.contains(#""kinds":["grant_not_renewed"]"#), "\(line)")
        }
        for name in Self.faults {
            let line = try #require(result.stdout.split(separator: "\n").first { $0.contains(#""scenario":"\#(name)""#) })
            #expect(line.contains("sealed_caller_shown") && line.contains("sealed_push_trusted"), "\(line)")
        }
    }

    /// The timeline of a sealed run names verdicts, never keys, blobs or callers.
    @Test func sealedRunPrintsNoKeyBlobOrCaller() async throws {
        guard
            let result = try await Self.tool.run([
                "run", "sealed-call", "--client-cmd", "python3 \(Self.examples)/correct_client.py",
            ])
        else { return }
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains(#""event":"seal_check""#) && result.stdout.contains(#""verdict":"opened""#))
        #expect(result.stdout.contains(#""event":"caller_shown""#))
        for secret in ["blob", "\"key\"", "gateway_hash", "Caller 0", "1000@"] {
            #expect(!result.stdout.contains(secret), "\(secret)")
        }
    }
}

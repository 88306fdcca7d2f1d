import Foundation
import Testing

@testable import SIPCore

/// Inputs found by scripts/fuzz.sh (Vectors/fuzz/), replayed through the same invariants as the
/// sip-message target (Fuzz/astra-fuzz/Targets/SIPMessageTarget.swift, docs/fuzzing.md).
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    static let limits = SIPParserLimits(
        maxHeaderCount: 40, maxLineLength: 512, maxHeaderSectionSize: 4096, maxBodySize: 4096)

    static let files: [String] = {
        let dir = Vectors.directory.appendingPathComponent("fuzz")
        return ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).sorted()
    }()

    @Test("crash inputs keep the fuzz invariants", arguments: files)
    func replay(file: String) throws {
        let bytes = Vectors.bytes("fuzz/" + file)
        guard let message = try? SIPMessage(parsing: bytes, limits: Self.limits) else { return }
        let wire = message.serialized()
        let again = try SIPMessage(parsing: wire, limits: Self.limits)
        #expect(again.serialized() == wire)
        var edited = message
        var headers = edited.headers
        headers.add("X-Fuzz", "1")
        headers.remove(.via)
        edited.headers = headers
        do {
            let reparsed = try SIPMessage(parsing: edited.serialized())
            #expect(reparsed.headers[SIPHeaderName("X-Fuzz")] == "1")
            #expect(reparsed.bodyBytes == message.bodyBytes)
        } catch {
            Issue.record("edited message does not re-parse: \(error)")
        }
    }
}

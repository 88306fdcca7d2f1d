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

    /// redaction target: `-----BEGIN pn-prid=PRIVATE KEY-----` followed by a body. The first pass
    /// redacted the body and skipped the header; the second found the body already redacted, so
    /// it scanned the header and redacted `pn-prid=PRIVATE`: redacting twice changed the text.
    /// The header of a PEM key is now skipped either way.
    @Test("redacting twice changes nothing, PEM header with a key inside")
    func redactionOfPEMHeaderIsIdempotent() {
        for text in [
            "-----BEGIN pn-prid=PRIVATE KEY-----\r\n{\"password\":\"5ec7e7a1b2c3\"}\r\n",
            "-----BEGIN pn-prid=PRIVATE KEY-----", "-----BEGIN password=x PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----",
        ] {
            let once = Redaction.redact(text)
            #expect(Redaction.redact(once) == once, "\(text.debugDescription) → \(once.debugDescription)")
        }
        #expect(
            Redaction.redact("-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----")
                == "-----BEGIN PRIVATE KEY-----<redacted>-----END PRIVATE KEY-----")
    }
}

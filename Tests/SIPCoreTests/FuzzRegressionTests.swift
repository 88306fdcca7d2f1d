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

    /// The `redaction` target's inputs (`redaction-*.bin`); the rest are SIP messages (`*.dat`).
    static let redactionFiles = files.filter { $0.hasPrefix("redaction-") }
    static let messageFiles = files.filter { $0.hasSuffix(".dat") }

    @Test("crash inputs keep the fuzz invariants", arguments: messageFiles)
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

    /// redaction target (`redaction-001-quoted-value-across-lines.bin`, 203 bytes): a quoted
    /// `pn-prid="…` value ran on past its line end to a quote on the next line. Its line held a
    /// `-----BEGIN ` before it, the next line `PRIVATE KEY-----` after the closing quote;
    /// replacing the value removed the line end between them, so a second pass saw one PEM
    /// header and redacted a "body" the first pass had left. A quoted value now ends with its
    /// line.
    /// Replayed as the target does: byte 0 picks our secret line, the rest is the peer's text.
    @Test("redaction inputs keep the fuzz invariants", arguments: redactionFiles)
    func replayRedaction(file: String) {
        let bytes = Vectors.bytes("fuzz/" + file)
        let rest = Array(bytes.dropFirst())
        let once = Redaction.redact(bytes: rest)
        #expect(Redaction.redact(bytes: once) == once)
        let secret = "5ec7e7a1b2c3d4e5f60718293a4b5c6d"
        let cut = rest.firstIndex(of: 0) ?? rest.count
        let before = String(decoding: rest[..<cut], as: UTF8.self)
        let after = cut < rest.count ? String(decoding: rest[(cut + 1)...], as: UTF8.self) : ""
        for line in ["a=ice-pwd:\(secret)", "Contact: <sip:1001@192.0.2.1;pn-prid=\(secret)>;expires=600"] {
            let text = Redaction.redact(before + "\r\n" + line + "\r\n" + after)
            #expect(!text.contains(secret))
            #expect(Redaction.redact(text) == text)
        }
    }
}

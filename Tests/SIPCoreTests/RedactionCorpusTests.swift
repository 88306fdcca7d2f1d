import Foundation
import Testing

@testable import SIPCore

/// The redactor over real traces: messages captured between our tools, sipsak and the test
/// Kamailio, RFC examples, and tool diagnostics (`Vectors/redaction/manifest.json` names the
/// source of each). Every listed secret must go, every listed neighbour must stay, and the
/// result must equal the reviewed `.redacted` golden file byte for byte.
@Suite struct RedactionCorpusTests {
    struct Entry: Decodable, CustomTestStringConvertible {
        let file: String
        let source: String
        let secrets: [String]
        let keep: [String]
        var testDescription: String { file }
    }

    static let directory = Vectors.directory.appendingPathComponent("redaction")

    static let entries: [Entry] = {
        let data = try! Data(contentsOf: directory.appendingPathComponent("manifest.json"))
        return try! JSONDecoder().decode([Entry].self, from: data)
    }()

    static func bytes(_ name: String) -> [UInt8]? {
        (try? Data(contentsOf: directory.appendingPathComponent(name))).map { Array($0) }
    }

    @Test(arguments: entries)
    func everySecretGoesAndTheRestStays(_ entry: Entry) throws {
        let input = try #require(Self.bytes(entry.file))
        let output = Redaction.redact(bytes: input)
        let text = String(decoding: output, as: UTF8.self)
        #expect(!entry.secrets.isEmpty)
        for secret in entry.secrets {
            #expect(String(decoding: input, as: UTF8.self).contains(secret), "\(secret) is not in the input")
            #expect(!text.contains(secret), "\(secret) leaked")
        }
        for neighbour in entry.keep { #expect(text.contains(neighbour), "\(neighbour) was lost") }
        #expect(Redaction.redact(bytes: output) == output, "redacting twice changed something")
        if ProcessInfo.processInfo.environment["ASTRA_WRITE_GOLDEN"] != nil {
            let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("Vectors/redaction/\(entry.file).redacted")
            try Data(output).write(to: golden)
        }
        let golden = try #require(Self.bytes(entry.file + ".redacted"), "no golden file")
        let lines = output.split(separator: 10, omittingEmptySubsequences: false)
        let goldenLines = golden.split(separator: 10, omittingEmptySubsequences: false)
        #expect(lines.count == goldenLines.count, "line count differs from the golden file")
        for (number, (line, expected)) in zip(lines, goldenLines).enumerated() where line != expected {
            Issue.record("line \(number + 1): \(String(decoding: line, as: UTF8.self)) ≠ golden \(String(decoding: expected, as: UTF8.self))")
            break
        }
    }

    /// In a SIP trace only secret values change: the same lines, in the same order (a PEM key
    /// body, which spans lines, occurs in the diagnostics only).
    @Test(arguments: entries.filter { $0.file.hasSuffix(".trace") })
    func structureIsKept(_ entry: Entry) throws {
        let input = try #require(Self.bytes(entry.file))
        let output = Redaction.redact(bytes: input)
        #expect(input.split(separator: 10, omittingEmptySubsequences: false).count
            == output.split(separator: 10, omittingEmptySubsequences: false).count)
    }
}

import Foundation
import Testing
import ToolSupport

/// `docs/man/*.1` and `docs/man/*.md` must be what the specs generate (run scripts/gen-man.sh).
@Suite struct GeneratedDocsTests {
    static let manDirectory: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/"
            && !FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path)
        {
            url.deleteLastPathComponent()
        }
        return url.appendingPathComponent("docs/man")
    }()

    @Test(arguments: ToolSpecs.all.map(\.name))
    func manualPageIsUpToDate(_ name: String) throws {
        let spec = try #require(ToolSpecs.all.first { $0.name == name })
        let troff = try String(contentsOf: Self.manDirectory.appendingPathComponent("\(name).1"), encoding: .utf8)
        #expect(troff == ManualFormatter().manual(for: spec), "docs/man/\(name).1 is stale: run scripts/gen-man.sh")
        let markdown = try String(contentsOf: Self.manDirectory.appendingPathComponent("\(name).md"), encoding: .utf8)
        #expect(
            markdown == MarkdownFormatter().markdown(for: spec), "docs/man/\(name).md is stale: run scripts/gen-man.sh")
    }
}

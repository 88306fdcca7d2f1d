import AstraTestSupport
import Foundation
import SIPCore
import Testing
import ToolSupport

/// `docs/man/*.1`, `docs/man/*.md` and `docs/completions/*` must be what the specs generate
/// (run scripts/gen-man.sh); `make install` installs them.
@Suite struct GeneratedDocsTests {
    static let manDirectory = RepositoryRoot.appending("docs/man")
    static let completionDirectory = RepositoryRoot.appending("docs/completions")

    @Test(arguments: ToolSpecs.all.map(\.name))
    func manualPageIsUpToDate(_ name: String) throws {
        let spec = try #require(ToolSpecs.all.first { $0.name == name })
        let troff = try String(contentsOf: Self.manDirectory.appendingPathComponent("\(name).1"), encoding: .utf8)
        #expect(troff == ManualFormatter().manual(for: spec), "docs/man/\(name).1 is stale: run scripts/gen-man.sh")
        let markdown = try String(contentsOf: Self.manDirectory.appendingPathComponent("\(name).md"), encoding: .utf8)
        #expect(
            markdown == MarkdownFormatter().markdown(for: spec), "docs/man/\(name).md is stale: run scripts/gen-man.sh")
    }

    @Test(arguments: ToolSpecs.all.map(\.name))
    func completionsAreUpToDate(_ name: String) throws {
        let spec = try #require(ToolSpecs.all.first { $0.name == name })
        let bash = try String(
            contentsOf: Self.completionDirectory.appendingPathComponent("\(name).bash"), encoding: .utf8)
        #expect(
            bash == CompletionFormatter().completion(for: spec, shell: .bash),
            "docs/completions/\(name).bash is stale: run scripts/gen-man.sh")
        let zsh = try String(contentsOf: Self.completionDirectory.appendingPathComponent("_\(name)"), encoding: .utf8)
        #expect(
            zsh == CompletionFormatter().completion(for: spec, shell: .zsh),
            "docs/completions/_\(name) is stale: run scripts/gen-man.sh")
    }

    /// scripts/tools.sh (gen-man, make install, the install test) lists exactly ``ToolSpecs/all``.
    @Test func installedToolsAreTheSpecs() throws {
        let script = try String(contentsOf: RepositoryRoot.appending("scripts/tools.sh"), encoding: .utf8)
        let line = try #require(script.split(separator: "\n").first { $0.hasPrefix("astra_tools=(") })
        let names = line.dropFirst("astra_tools=(".count).dropLast().split(separator: " ").map(String.init)
        #expect(names == ToolSpecs.all.map(\.name))
    }

    /// CHANGELOG.md's newest release heading is the version the tools print (``AstraVersion``).
    @Test func changelogNamesTheCurrentVersion() throws {
        let changelog = try String(contentsOf: RepositoryRoot.appending("CHANGELOG.md"), encoding: .utf8)
        let release = changelog.split(separator: "\n").first { $0.hasPrefix("## [") && !$0.hasPrefix("## [Unreleased]") }
        #expect(release?.hasPrefix("## [\(AstraVersion.current)]") == true, "CHANGELOG.md: newest release is not \(AstraVersion.current)")
    }
}

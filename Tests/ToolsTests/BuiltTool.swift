import AstraTestSupport
import Foundation
import Testing

/// Runs a built tool binary and captures stdout, stderr and the exit status.
///
/// The binaries are found next to the test bundle (`.build/<triple>/debug/`), else in
/// `<package>/.build/debug/`. A missing binary fails the test with the command that builds it;
/// nothing is skipped silently.
struct BuiltTool {
    struct Result: Equatable {
        var status: Int32
        var stdout: String
        var stderr: String
    }


    /// Candidate directories holding the built executables, best first.
    static let binDirectories: [URL] = {
        var candidates: [URL] = []
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(URL(fileURLWithPath: exe).deletingLastPathComponent())
        }
        candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        candidates.append(RepositoryRoot.appending(".build/debug"))
        return candidates
    }()

    let name: String

    /// The binary's path, or `nil` (after recording a failure) when it was not built.
    func executable() -> URL? {
        for directory in Self.binDirectories {
            let url = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        Issue.record(
            """
            \(name) is not built (looked in \(Self.binDirectories.map(\.path).joined(separator: ", "))). \
            Build every product first: swift build --build-tests (make test does).
            """)
        return nil
    }

    /// Runs the tool with `arguments`, standard input from /dev/null, to its end (off the
    /// cooperative pool: ``ChildProcess``).
    func run(_ arguments: [String]) async throws -> Result? {
        guard let executable = executable() else { return nil }
        let child = try await ChildProcess.run(executable, arguments)
        return Result(status: child.status, stdout: child.text, stderr: child.stderr)
    }
}

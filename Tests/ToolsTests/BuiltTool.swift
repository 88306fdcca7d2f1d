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

    static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/"
            && !FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path)
        {
            url.deleteLastPathComponent()
        }
        return url
    }()

    /// Candidate directories holding the built executables, best first.
    static let binDirectories: [URL] = {
        var candidates: [URL] = []
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(URL(fileURLWithPath: exe).deletingLastPathComponent())
        }
        candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        candidates.append(packageRoot.appendingPathComponent(".build/debug"))
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

    /// Runs the tool with `arguments`, standard input from /dev/null, stdout/stderr to files.
    func run(_ arguments: [String]) throws -> Result? {
        guard let executable = executable() else { return nil }
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("astra-tools-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outURL = scratch.appendingPathComponent("stdout")
        let errURL = scratch.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = out
        process.standardError = err
        try process.run()
        process.waitUntilExit()
        try out.close()
        try err.close()
        return Result(
            status: process.terminationStatus,
            stdout: try String(contentsOf: outURL, encoding: .utf8),
            stderr: try String(contentsOf: errURL, encoding: .utf8))
    }
}

import Foundation

/// Runs a program to its end and captures its exit status, stdout and stderr — without blocking
/// a thread of the cooperative pool. `Process.waitUntilExit()` (or reading a pipe to its end)
/// inside an async test holds one of the pool's threads for the child's whole life; on a 2-core
/// machine two such tests starve every other test of the parallel phase (docs/decisions.md D6).
/// Here the wait is Foundation's termination handler, and output goes to files, so a child that
/// writes more than a pipe holds cannot dead-lock either.
public enum ChildProcess {
    public struct Result: Sendable, Equatable {
        public var status: Int32
        public var stdout: Data
        public var stderr: String
        /// stdout as UTF-8 text.
        public var text: String { String(decoding: stdout, as: UTF8.self) }
    }

    /// Runs `executable` (a path) with `arguments`; standard input is `stdin` (or /dev/null).
    /// `environment` entries are added to this process's environment.
    public static func run(
        _ executable: URL, _ arguments: [String], stdin: Data? = nil, directory: URL? = nil,
        environment: [String: String] = [:]
    ) async throws -> Result {
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("astra-child-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let inURL = scratch.appendingPathComponent("stdin")
        let outURL = scratch.appendingPathComponent("stdout")
        let errURL = scratch.appendingPathComponent("stderr")
        for (url, contents) in [(inURL, stdin ?? Data()), (outURL, Data()), (errURL, Data())] {
            guard FileManager.default.createFile(atPath: url.path, contents: contents) else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
            }
        }
        let input = try FileHandle(forReadingFrom: inURL)
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        defer {
            try? input.close()
            try? out.close()
            try? err.close()
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.standardInput = stdin == nil ? FileHandle.nullDevice : input
        process.standardOutput = out
        process.standardError = err
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        return Result(
            status: status, stdout: try Data(contentsOf: outURL),
            stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }

    /// Runs `command` found on PATH (through /usr/bin/env).
    public static func run(
        command: String, _ arguments: [String], stdin: Data? = nil, directory: URL? = nil,
        environment: [String: String] = [:]
    ) async throws -> Result {
        try await run(
            URL(fileURLWithPath: "/usr/bin/env"), [command] + arguments, stdin: stdin, directory: directory,
            environment: environment)
    }
}

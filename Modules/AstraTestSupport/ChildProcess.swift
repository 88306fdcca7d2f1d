import Foundation
import ToolSupport

/// Runs a program and captures its exit status, stdout and stderr — without blocking a thread
/// of the cooperative pool. `Process.waitUntilExit()` (or reading a pipe to its end) inside an
/// async test holds one of the pool's threads for the child's whole life; on a 2-core machine
/// two such tests starve every other test of the parallel phase (docs/decisions.md D6). Here
/// the wait is a polled `waitpid(WNOHANG)`, and output goes to files, so a child that
/// writes more than a pipe holds cannot dead-lock either.
public enum ChildProcess {
    public struct Result: Sendable, Equatable {
        public var status: Int32
        public var stdout: Data
        public var stderr: String
        /// stdout as UTF-8 text.
        public var text: String { String(decoding: stdout, as: UTF8.self) }
    }

    /// A started child: signal it by its pid, then wait for its result.
    public final class Running: @unchecked Sendable {
        public let pid: Int32
        private let finished: Task<Int32, Never>
        private let scratch: URL
        private let files: [FileHandle]

        fileprivate init(pid: Int32, finished: Task<Int32, Never>, scratch: URL, files: [FileHandle]) {
            self.pid = pid
            self.finished = finished
            self.scratch = scratch
            self.files = files
        }

        /// Sends `signal` to the child (by its pid; never by name).
        public func signal(_ signal: Int32) { kill(pid, signal) }

        /// Waits for the child to end and reads what it wrote.
        public func result() async throws -> Result {
            let status = await finished.value
            defer {
                for file in files { try? file.close() }
                try? FileManager.default.removeItem(at: scratch)
            }
            return Result(
                status: status, stdout: try Data(contentsOf: scratch.appendingPathComponent("stdout")),
                stderr: String(decoding: try Data(contentsOf: scratch.appendingPathComponent("stderr")), as: UTF8.self))
        }
    }

    /// Starts `executable` (a path) with `arguments`; standard input is `stdin` (or /dev/null).
    /// `environment` entries are added to this process's environment.
    ///
    /// Through ``ProcessSpawn`` (empty signal mask, default dispositions): the test runner
    /// blocks most signals in its threads, and Foundation's `Process` passes that mask on, so a
    /// peer told to stop with SIGINT/SIGTERM would never see it.
    public static func start(
        _ executable: URL, _ arguments: [String], stdin: Data? = nil, directory: URL? = nil,
        environment: [String: String] = [:]
    ) throws -> Running {
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("astra-child-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let inURL = scratch.appendingPathComponent("stdin")
        let outURL = scratch.appendingPathComponent("stdout")
        let errURL = scratch.appendingPathComponent("stderr")
        for (url, contents) in [(inURL, stdin ?? Data()), (outURL, Data()), (errURL, Data())] {
            guard FileManager.default.createFile(atPath: url.path, contents: contents) else {
                try? FileManager.default.removeItem(at: scratch)
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
            }
        }
        // A working directory: through sh, which changes to it and execs the program.
        let argv =
            directory.map { ["/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", $0.path, executable.path] + arguments }
            ?? [executable.path] + arguments
        let pid: pid_t
        do {
            pid = try ProcessSpawn.spawn(
                argv, environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
                stdin: stdin == nil ? .null : .file(inURL.path, truncate: false),
                stdout: .file(outURL.path, truncate: false), stderr: .file(errURL.path, truncate: false))
        } catch {
            try? FileManager.default.removeItem(at: scratch)
            throw error
        }
        let child = pid
        // Reaped by polling (every 10 ms, a sleep, not a blocked thread).
        let finished = Task { () -> Int32 in
            var raw: Int32 = 0
            while true {
                let rc = waitpid(child, &raw, WNOHANG)
                if rc == child { return ProcessSpawn.exitStatus(raw) }
                if rc < 0 && errno != EINTR { return -1 }
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
        return Running(pid: pid, finished: finished, scratch: scratch, files: [])
    }

    /// Runs `executable` (a path) with `arguments` to its end.
    public static func run(
        _ executable: URL, _ arguments: [String], stdin: Data? = nil, directory: URL? = nil,
        environment: [String: String] = [:]
    ) async throws -> Result {
        try await start(executable, arguments, stdin: stdin, directory: directory, environment: environment).result()
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

    /// Starts `command` found on PATH. Its pid is that of `env`, which execs the command, so
    /// signals reach the command itself.
    public static func start(
        command: String, _ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:]
    ) throws -> Running {
        try start(URL(fileURLWithPath: "/usr/bin/env"), [command] + arguments, stdin: stdin, environment: environment)
    }
}

import Foundation
import Synchronization
import ToolSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a program and captures its exit status, stdout and stderr — without blocking a thread
/// of the cooperative pool. `Process.waitUntilExit()` (or reading a pipe to its end) inside an
/// async test holds one of the pool's threads for the child's whole life; on a 2-core machine
/// two such tests starve every other test of the parallel phase (docs/decisions.md D6). Here
/// the wait is a polled `waitpid(WNOHANG)`, and output goes to files, so a child that
/// writes more than a pipe holds cannot dead-lock either. A peer that talks line by line
/// (``startConversation(_:_:environment:)``) has a socketpair for stdin and stdout instead.
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
        private let ended: ExitBox
        private let scratch: URL
        /// Our end of the socketpair that is the child's stdin and stdout, for a conversation.
        private let channel: Conversation?

        fileprivate init(
            pid: Int32, finished: Task<Int32, Never>, ended: ExitBox, scratch: URL, channel: Conversation?
        ) {
            self.pid = pid
            self.finished = finished
            self.ended = ended
            self.scratch = scratch
            self.channel = channel
        }

        /// A child dropped without ``result()`` (killed by a `defer`) leaves no scratch folder.
        deinit {
            channel?.close()
            try? FileManager.default.removeItem(at: scratch)
        }

        /// Sends `signal` to the child (by its pid; never by name). Not once it is reaped: the
        /// pid may belong to another process by then.
        public func signal(_ signal: Int32) {
            guard ended.status == nil else { return }
            kill(pid, signal)
        }

        /// The exit status once the child has ended and was reaped, nil while it runs.
        public var exitStatus: Int32? { ended.status }

        /// Waits for the child to end and reads what it wrote.
        public func result() async throws -> Result {
            let status = await finished.value
            defer {
                channel?.close()
                try? FileManager.default.removeItem(at: scratch)
            }
            return Result(
                status: status, stdout: try Data(contentsOf: scratch.appendingPathComponent("stdout")),
                stderr: String(decoding: try Data(contentsOf: scratch.appendingPathComponent("stderr")), as: UTF8.self))
        }

        /// Writes `line` and a newline to the child's stdin (a conversation only).
        public func send(line: String) throws {
            guard let channel else { throw CocoaError(.fileWriteUnknown) }
            try channel.send(Array((line + "\n").utf8))
        }

        /// The next line the child wrote on stdout, without its newline (a conversation only);
        /// nil once it closed stdout or when none came within `timeout`.
        public func readLine(within timeout: Duration) async -> String? {
            await channel?.readLine(within: timeout)
        }

        /// What the child wrote on stderr so far.
        public var stderrSoFar: String {
            String(decoding: (try? Data(contentsOf: scratch.appendingPathComponent("stderr"))) ?? Data(), as: UTF8.self)
        }
    }

    /// The exit status, set once by the reaping task.
    fileprivate final class ExitBox: Sendable {
        private let value = Mutex<Int32?>(nil)
        var status: Int32? { value.withLock { $0 } }
        func set(_ status: Int32) { value.withLock { $0 = status } }
    }

    /// Our end of a child's stdin/stdout socketpair: whole writes, line reads polled without a
    /// blocked thread (`MSG_DONTWAIT`, a sleep between tries).
    fileprivate final class Conversation: Sendable {
        private let fd: Int32
        /// `open`: no EOF seen yet; `closed`: our descriptor is closed.
        private let state = Mutex<(buffer: [UInt8], open: Bool, closed: Bool)>(([], true, false))

        init(fd: Int32) { self.fd = fd }

        func send(_ bytes: [UInt8]) throws {
            var offset = 0
            while offset < bytes.count {
                let n = bytes[offset...].withUnsafeBytes {
                    Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
                offset += n
            }
        }

        func readLine(within timeout: Duration) async -> String? {
            let deadline = ContinuousClock.now + timeout
            while true {
                let (line, more) = state.withLock { state -> (String?, Bool) in
                    while true {
                        if let newline = state.buffer.firstIndex(of: 10) {
                            let line = String(decoding: state.buffer[..<newline], as: UTF8.self)
                            state.buffer.removeSubrange(...newline)
                            return (line, true)
                        }
                        guard state.open, !state.closed else { return (nil, false) }
                        var chunk = [UInt8](repeating: 0, count: 4096)
                        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                        if n > 0 {
                            state.buffer += chunk[..<n]
                        } else if n < 0 && errno == EINTR {
                            continue
                        } else if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                            return (nil, true)
                        } else {
                            state.open = false  // EOF or an error: the child closed its stdout
                        }
                    }
                }
                if let line { return line }
                guard more, ContinuousClock.now < deadline else { return nil }
                try? await Task.sleep(for: .milliseconds(5))  // poll interval of a bounded wait
            }
        }

        /// Closes our end (once): the child reads EOF on stdin.
        func close() {
            state.withLock { state in
                guard !state.closed else { return }
                state.closed = true
                state.open = false
                _ = Glibc.close(fd)
            }
        }

        deinit { close() }
    }

    /// Starts `executable` (a path) with `arguments`; standard input is `stdin` (or /dev/null).
    /// `environment` entries are added to this process's environment.
    ///
    /// Through ``ProcessSpawn`` (empty signal mask, default dispositions, no descriptor of ours
    /// but the three streams): the test runner blocks most signals in its threads, and
    /// Foundation's `Process` passes that mask on, so a peer told to stop with SIGINT/SIGTERM
    /// would never see it.
    public static func start(
        _ executable: URL, _ arguments: [String], stdin: Data? = nil, directory: URL? = nil,
        environment: [String: String] = [:]
    ) throws -> Running {
        try launch(
            executable, arguments, stdin: stdin, conversation: false, directory: directory, environment: environment)
    }

    /// Starts a peer that talks line by line: its stdin and stdout are one end of a socketpair,
    /// ours the other (``Running/send(line:)``, ``Running/readLine(within:)``); stderr goes to a
    /// file as with ``start(_:_:stdin:directory:environment:)``. A socket, not a pipe: a write
    /// to a peer that died is EPIPE (`MSG_NOSIGNAL`), not a SIGPIPE to the test runner.
    public static func startConversation(
        _ executable: URL, _ arguments: [String], environment: [String: String] = [:]
    ) throws -> Running {
        try launch(executable, arguments, stdin: nil, conversation: true, directory: nil, environment: environment)
    }

    private static func launch(
        _ executable: URL, _ arguments: [String], stdin: Data?, conversation: Bool, directory: URL?,
        environment: [String: String]
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
        var pair: [Int32] = [-1, -1]
        if conversation {
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
                let e = errno
                try? FileManager.default.removeItem(at: scratch)
                throw POSIXError(POSIXErrorCode(rawValue: e) ?? .EIO)
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
                stdin: conversation ? .descriptor(pair[1]) : stdin == nil ? .null : .file(inURL.path, truncate: false),
                stdout: conversation ? .descriptor(pair[1]) : .file(outURL.path, truncate: false),
                stderr: .file(errURL.path, truncate: false))
        } catch {
            if conversation { for fd in pair { Glibc.close(fd) } }
            try? FileManager.default.removeItem(at: scratch)
            throw error
        }
        if conversation { Glibc.close(pair[1]) }  // the child's end: its exit is then our EOF
        let child = pid
        let ended = ExitBox()
        // Reaped by polling (every 10 ms, a sleep, not a blocked thread).
        let finished = Task { () -> Int32 in
            var raw: Int32 = 0
            while true {
                let rc = waitpid(child, &raw, WNOHANG)
                if rc == child {
                    ended.set(ProcessSpawn.exitStatus(raw))
                    return ProcessSpawn.exitStatus(raw)
                }
                if rc < 0 && errno != EINTR {
                    ended.set(-1)
                    return -1
                }
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
        return Running(
            pid: pid, finished: finished, ended: ended, scratch: scratch,
            channel: conversation ? Conversation(fd: pair[0]) : nil)
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

import Glibc

/// A child process started with posix_spawn (empty signal mask: a Swift parent's Dispatch
/// threads block signals, and the child would inherit that), stdout/stderr to a file.
final class ChildProcess: Sendable {
    let pid: pid_t
    let logPath: String

    init(_ argv: [String], environment: [String: String], logPath: String) throws(LiveError) {
        self.logPath = logPath
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let cArgs = argv.map { strdup($0) } + [nil]
        let cEnv = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for arg in cArgs { free(arg) }
            for entry in cEnv { free(entry) }
        }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, argv[0], &actions, &attributes, cArgs, cEnv)
        guard rc == 0 else {
            throw LiveError(.infrastructure, "cannot start \(argv[0]): \(String(cString: strerror(rc)))")
        }
        self.pid = pid
    }

    /// Whether it still runs.
    var isRunning: Bool {
        var status: Int32 = 0
        return waitpid(pid, &status, WNOHANG) == 0
    }

    /// SIGTERM, then SIGKILL after `graceMs`; reaps it.
    func stop(graceMs: Int = 2_000) {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        for _ in 0..<(graceMs / 10) {
            if waitpid(pid, &status, WNOHANG) != 0 { return }
            usleep(10_000)
        }
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
    }

    /// Runs `argv` to completion; returns the exit status and the output.
    static func run(_ argv: [String], environment: [String: String], logPath: String) throws(LiveError) -> (
        Int32, String
    ) {
        let child = try ChildProcess(argv, environment: environment, logPath: logPath)
        var status: Int32 = 0
        while waitpid(child.pid, &status, 0) < 0 && errno == EINTR {}
        let output = readFile(logPath)
        let exited = status & 0x7F == 0
        return (exited ? (status >> 8) & 0xFF : 128 + (status & 0x7F), output)
    }

    static func readFile(_ path: String) -> String {
        guard let file = fopen(path, "r") else { return "" }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = fread(&buffer, 1, buffer.count, file)
            if n <= 0 { break }
            bytes += buffer.prefix(n)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// The process environment as a dictionary.
func currentEnvironment() -> [String: String] {
    var result: [String: String] = [:]
    var pointer = environ
    while let entry = pointer.pointee {
        let text = String(cString: entry)
        if let eq = text.firstIndex(of: "=") { result[String(text[..<eq])] = String(text[text.index(after: eq)...]) }
        pointer += 1
    }
    return result
}

import Glibc
import Synchronization
import ToolSupport

/// A child process (started by ``ProcessSpawn``: empty signal mask, default dispositions):
/// live mode's peers (Kamailio's script, astra-wakegw) and client processes (`--client-cmd`).
final class ChildProcess: Sendable {
    /// Where the child's standard streams go.
    enum Stdio: Sendable {
        /// stdin /dev/null, stdout and stderr to a log file.
        case log(String)
        /// stdin and stdout both the given socket (one end of a socketpair: the parent talks over
        /// the other end), stderr inherited; the child leads a process group of its own, so
        /// ``kill9()`` ends whatever it started too (a shell command's children).
        case socket(Int32)
    }

    let pid: pid_t
    let logPath: String
    /// The child leads its own process group (``Stdio/socket(_:)``): signals go to the group.
    let ownGroup: Bool
    /// The exit status once reaped (a reaped pid may be reused: never signal it again).
    private let reaped = Mutex<Int32?>(nil)

    convenience init(_ argv: [String], environment: [String: String], logPath: String) throws(LiveError) {
        try self.init(argv, environment: environment, stdio: .log(logPath))
    }

    init(_ argv: [String], environment: [String: String], stdio: Stdio) throws(LiveError) {
        let streams: (ProcessSpawn.Stream, ProcessSpawn.Stream, ProcessSpawn.Stream)
        switch stdio {
        case .log(let path):
            logPath = path
            ownGroup = false
            streams = (.null, .file(path, truncate: true), .standardOutput)
        case .socket(let fd):
            logPath = ""
            ownGroup = true
            streams = (.descriptor(fd), .descriptor(fd), .inherit)
        }
        do {
            pid = try ProcessSpawn.spawn(
                argv, environment: environment, stdin: streams.0, stdout: streams.1, stderr: streams.2,
                ownGroup: ownGroup)
        } catch {
            throw LiveError(.infrastructure, error.description)
        }
    }

    /// Whether it still runs.
    var isRunning: Bool { exitStatus() == nil }

    /// Reaps the child if it has ended (`block`: wait for it); returns the status.
    private func reap(block: Bool) -> Int32? {
        reaped.withLock { reaped in
            if let reaped { return reaped }
            var status: Int32 = 0
            var rc: pid_t
            repeat { rc = waitpid(pid, &status, block ? 0 : WNOHANG) } while rc < 0 && errno == EINTR
            guard rc == pid else { return nil }
            reaped = ProcessSpawn.exitStatus(status)
            return reaped
        }
    }

    /// The exit status once it has ended (reaped here), nil while it runs: `exit N` → N,
    /// a signal → 128 + signal.
    func exitStatus() -> Int32? { reap(block: false) }

    /// SIGKILL at once (to the whole group when it leads one) and reap: an app process iOS
    /// kills gets no chance to clean up.
    func kill9() {
        if ownGroup { kill(-pid, SIGKILL) }
        guard reap(block: false) == nil else { return }
        kill(pid, SIGKILL)
        _ = reap(block: true)
    }

    /// SIGTERM, then SIGKILL after `graceMs`; reaps it.
    func stop(graceMs: Int = 2_000) {
        guard reap(block: false) == nil else { return }
        kill(pid, SIGTERM)
        for _ in 0..<(graceMs / 10) {
            if reap(block: false) != nil { return }
            usleep(10_000)
        }
        kill(pid, SIGKILL)
        _ = reap(block: true)
    }

    /// Runs `argv` to completion; returns the exit status and the output.
    static func run(_ argv: [String], environment: [String: String], logPath: String) throws(LiveError) -> (
        Int32, String
    ) {
        let child = try ChildProcess(argv, environment: environment, logPath: logPath)
        let status = child.reap(block: true) ?? 128
        return (status, readFile(logPath))
    }

    static func readFile(_ path: String) -> String {
        guard let file = fopen(path, "re") else { return "" }
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

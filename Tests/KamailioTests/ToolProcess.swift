import AstraTestSupport
import Foundation
import ToolSupport

/// A built tool (e.g. `astra-register`) run as a child process with stdout and stderr in files,
/// so a test can read its JSON Lines while it runs, signal it, and wait for its exit status.
/// Started by ``ProcessSpawn`` (empty signal mask), like ``KamailioServer/script(_:natping:)``.
final class ToolProcess: @unchecked Sendable {
    let pid: pid_t
    let stdoutPath: String
    let stderrPath: String
    private var status: Int32?

    /// The directory of the built executables: next to this test binary.
    static let binDirectory: String = {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        var url = URL(fileURLWithPath: exe).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: url.appendingPathComponent("astra-register").path),
              url.path != "/" {
            url.deleteLastPathComponent()
        }
        return url.path
    }()

    init(_ tool: String, _ arguments: [String], stdin: String? = nil) throws {
        let name = tool.split(separator: "/").last.map(String.init) ?? tool
        let base = NSTemporaryDirectory() + "astra-tool-\(name)-\(UUID().uuidString)"
        stdoutPath = base + ".out"
        stderrPath = base + ".err"
        let inputPath = base + ".in"
        for (file, contents) in [(stdoutPath, Data()), (stderrPath, Data()), (inputPath, Data((stdin ?? "").utf8))] {
            guard FileManager.default.createFile(atPath: file, contents: contents) else {
                throw ToolProcessError(message: "cannot create \(file)")
            }
        }
        let path = tool.hasPrefix("/") ? tool : Self.binDirectory + "/" + tool  // an absolute path: another program
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw ToolProcessError(message: "\(path) is missing: run `swift build` first")
        }
        do {
            pid = try ProcessSpawn.spawn(
                [path] + arguments, environment: ProcessInfo.processInfo.environment,
                stdin: stdin == nil ? .null : .file(inputPath, truncate: false),
                stdout: .file(stdoutPath, truncate: false), stderr: .file(stderrPath, truncate: false))
        } catch {
            throw ToolProcessError(message: error.description)
        }
    }

    var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// The stdout JSON lines whose `"event"` is `name`.
    func events(_ name: String) -> [String] {
        stdout.split(separator: "\n").map(String.init).filter { $0.contains("\"event\":\"\(name)\"") }
    }

    /// Polls (IO wait, not a protocol timer) until `condition` holds or `timeout` passes.
    func waitFor(_ timeout: Duration, _ condition: () -> Bool) async -> Bool {
        await eventually(timeout: timeout, every: .milliseconds(20)) { condition() }
    }

    func signal(_ number: Int32) { kill(pid, number) }

    /// Whether the process has ended (a zombie not yet reaped, /proc/PID/stat state Z), without
    /// reaping it: ``exitStatus(within:)`` still reads its status.
    var hasEnded: Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
        return stat.split(separator: ")").last?.split(separator: " ").first == "Z"
    }

    /// Waits for the exit status (bounded); kills the process if it does not end in time.
    func exitStatus(within timeout: Duration) async -> Int32? {
        if let status { return status }
        var raw: Int32 = 0
        let ended = await waitFor(timeout) { waitpid(pid, &raw, WNOHANG) == pid }
        guard ended else {
            kill(pid, SIGKILL)
            waitpid(pid, &raw, 0)
            return nil
        }
        status = ProcessSpawn.exitStatus(raw)
        return status
    }

    /// Runs to completion and returns (status, stdout, stderr).
    static func run(_ tool: String, _ arguments: [String], stdin: String? = nil,
                    timeout: Duration = .seconds(30)) async throws -> (Int32?, String, String) {
        let process = try ToolProcess(tool, arguments, stdin: stdin)
        let status = await process.exitStatus(within: timeout)
        return (status, process.stdout, process.stderr)
    }

    deinit {
        if status == nil {  // a test that failed early must not leave its tool running
            var raw: Int32 = 0
            if waitpid(pid, &raw, WNOHANG) == 0 {
                kill(pid, SIGKILL)
                waitpid(pid, &raw, 0)
            }
        }
        for path in [stdoutPath, stderrPath] { try? FileManager.default.removeItem(atPath: path) }
    }
}

struct ToolProcessError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

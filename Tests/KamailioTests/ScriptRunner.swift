import Foundation
import ToolSupport

/// Runs `scripts/<name> <command>` with `environment` (the inherited one, plus these values; a
/// nil value removes an inherited one) and returns its exit status and combined output.
/// ``ProcessSpawn`` + waitpid (not Foundation's Process, which can hang when several suites
/// launch processes at once, and passes the runner's blocked signal mask on).
func runScript(_ name: String, _ command: String, environment: [String: String?], output: String) -> (Int32, String) {
    _ = FileManager.default.createFile(atPath: output, contents: nil)  // emptied; the child's stdout opens it O_CREAT anyway
    var env = ProcessInfo.processInfo.environment
    for (key, value) in environment { env[key] = value }
    let argv = ["/bin/bash", KamailioServer.repoRoot + "/scripts/" + name, command]
    let pid: pid_t
    do {
        pid = try ProcessSpawn.spawn(
            argv, environment: env, stdout: .file(output, truncate: false), stderr: .standardOutput)
    } catch {
        return (127, error.description)
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    try? FileManager.default.removeItem(atPath: output)
    return (ProcessSpawn.exitStatus(status), text)
}

import Foundation

/// Runs `scripts/<name> <command>` with `environment` (the inherited one, plus these values; a
/// nil value removes an inherited one) and returns its exit status and combined output.
/// posix_spawn + waitpid (not Foundation's Process, which can hang when several suites launch
/// processes at once), with an empty signal mask for the child.
func runScript(_ name: String, _ command: String, environment: [String: String?], output: String) -> (Int32, String) {
    FileManager.default.createFile(atPath: output, contents: nil)
    var env = ProcessInfo.processInfo.environment
    for (key, value) in environment { env[key] = value }
    let argv = ["/bin/bash", KamailioServer.repoRoot + "/scripts/" + name, command]
    let envp = env.map { "\($0.key)=\($0.value)" }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_APPEND, 0)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var empty = sigset_t()
    sigemptyset(&empty)
    posix_spawnattr_setsigmask(&attributes, &empty)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
    var pid: pid_t = 0
    let cArgs = argv.map { strdup($0) } + [nil]
    let cEnv = envp.map { strdup($0) } + [nil]
    defer {
        for arg in cArgs { free(arg) }
        for entry in cEnv { free(entry) }
    }
    guard posix_spawn(&pid, "/bin/bash", &actions, &attributes, cArgs, cEnv) == 0 else {
        return (127, "posix_spawn failed")
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    try? FileManager.default.removeItem(atPath: output)
    let exited = status & 0x7F == 0
    return (exited ? (status >> 8) & 0xFF : 128 + (status & 0x7F), text)
}
